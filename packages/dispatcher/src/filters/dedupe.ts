import { uniqueSorted } from '@herald/core/uins';
import type { RecipientFilter } from './filter';
import { dedupeRecording } from './removals';

/** Removes repeated uins from a sorted list (the chain's first link; it runs on the sorted input). */
export const dedupeFilter: RecipientFilter = {
  name: 'dedupe',
  reason: 'duplicate',
  dedupes: true,
  async apply(sorted: Uint32Array) {
    return uniqueSorted(sorted);
  },
  async applyRecording(sorted: Uint32Array) {
    return dedupeRecording(sorted);
  },
};
