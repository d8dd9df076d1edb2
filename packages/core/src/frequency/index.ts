/**
 * @module @herald/core/frequency
 *
 * Randomised frequency release (docs/frequency.md): `compileFrequencyPolicy(options)` once,
 * then `budget(policy, uin, usedToday, now)` or, for a sorted batch,
 * `withinBudget(policy, uins, counter.used(uins, dayOf(policy, now)), now)`.
 *
 * @example
 *   import { compileFrequencyPolicy, withinBudget, dayOf } from '@herald/core/frequency';
 *   const policy = compileFrequencyPolicy(config.frequency);
 */
export { compileFrequencyPolicy, FREQUENCY_DEFAULTS } from './policy';
export type { FrequencyOptions, FrequencyWindowOptions, FrequencyPolicy, CompetitionWindowOfDay } from './policy';
export { FREQUENCY_HASH_SEED, dayOf, dayStartsAt, slotReleaseTimes, releasedSlots, budget, windowAt } from './release';
export type { CompetitionWindow } from './release';
export { withinBudget } from './filter';
export type { FrequencyFilterResult } from './filter';
export { MAX_FREQUENCY_DAY, checkFrequencyDay, checkFrequencyUses, checkSortedUins } from './counter-rules';
export { userReleaseClock, userDayOf, userBudget, ReleaseClockTable, withinZonedBudget } from './zoned';
export { releaseClock, releaseClockAtOffset } from './release';
export type { ReleaseClock } from './release';
