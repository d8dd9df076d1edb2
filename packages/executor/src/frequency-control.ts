import type { FrequencyCounter } from '@herald/core/ports';
import type { FrequencyPolicy } from '@herald/core/frequency';

/**
 * Frequency control as an executor sees it (docs/frequency.md): the policy
 * that says which of a user's slots are released, and the counter shared
 * with every dispatcher and executor. Present only with `frequency.enabled`.
 */
export interface FrequencyControl {
  policy: FrequencyPolicy;
  counter: FrequencyCounter;
}
