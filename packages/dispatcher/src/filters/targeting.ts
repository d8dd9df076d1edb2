import { MAX_SOURCE_BATCH, type AttributeIndex, type Clock } from '@herald/core/ports';
import { targetingFilter } from '@herald/audience';
import type { FilterContext, RecipientFilter } from './filter';
import { keepInSlices } from './slices';

/** What the targeting condition needs: the task's query, if it has one, and the attribute index. */
export interface TargetingConditionSource {
  index: AttributeIndex;
  /** The task's mode: the targeting query its recipients must match, or undefined for an untargeted task. */
  queryOf(context: FilterContext): Promise<string | undefined>;
  /** Default: the system clock (`active-since` is judged at the filter's time). */
  clock?: Clock;
}

/**
 * Removes the recipients whose attributes do not match the task's targeting
 * query (reason `targeting`), for tasks that carry one. A malformed query
 * fails the pre-processing with QUERY_INVALID.
 */
export function targetingConditionFilter(source: TargetingConditionSource): RecipientFilter {
  return {
    name: 'targeting',
    reason: 'targeting',
    runsFor: async (context: FilterContext) => (await source.queryOf(context)) !== undefined,
    async apply(uins: Uint32Array, context: FilterContext) {
      const query = await source.queryOf(context);
      if (query === undefined) return uins;
      const condition = targetingFilter(source.index, query, source.clock === undefined ? {} : { clock: source.clock });
      return keepInSlices(uins, MAX_SOURCE_BATCH, (part) => condition.filter(part));
    },
  };
}
