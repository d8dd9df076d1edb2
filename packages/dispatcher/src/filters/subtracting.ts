import { subtractSorted } from '@herald/core/uins';
import type { FilterReason } from '@herald/core/task';
import type { FilterContext, RecipientFilter } from './filter';

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
  };
}
