import { subtractSorted } from '@herald/core/uins';
import type { FilterReason } from '@herald/core/task';
import type { FilterContext, RecipientFilter } from './filter';
import { mergeSorted } from './merge-sorted';
import { subtractRecording } from './removals';

/**
 * A link that removes every uin of some sorted, distinct sets (blacklists,
 * earlier audiences): `apply` subtracts them in turn on one thread, and
 * `subtracts` hands the same sets to the parallel runner's workers.
 */
export function subtractingFilter(
  name: string,
  reason: FilterReason,
  sets: (context: FilterContext) => AsyncIterable<Uint32Array>,
): RecipientFilter {
  return {
    name,
    reason,
    subtracts: sets,
    async apply(uins: Uint32Array, context: FilterContext) {
      let kept = uins;
      for await (const set of sets(context)) {
        kept = subtractSorted(kept, set);
        if (kept.length === 0) break;
      }
      return kept;
    },
    async applyRecording(uins: Uint32Array, context: FilterContext) {
      let kept = uins;
      // One removed run per set, disjoint (a uin removed by one set is gone for the next): merged, they are the link's.
      const removed: Uint32Array[] = [];
      for await (const set of sets(context)) {
        const removal = subtractRecording(kept, set);
        kept = removal.kept;
        removed.push(removal.removed);
        if (kept.length === 0) break;
      }
      return { kept, removed: removed.length === 1 ? removed[0]! : mergeSorted(removed) };
    },
  };
}
