import type { FilterReason } from '@herald/core';

/** What a filter may know about the task it filters for. */
export interface FilterContext {
  taskId: number;
  accountId: string;
  contentCrc: number;
}

/**
 * One link of the pre-processing chain of responsibility. A filter receives the
 * audience as a sorted array of distinct uins and returns the kept ones (a
 * prefix view of the same memory is fine: filters compact in place).
 */
export interface RecipientFilter {
  readonly name: string;
  readonly reason: FilterReason;
  apply(sortedUnique: Uint32Array, context: FilterContext): Promise<Uint32Array>;
}

export interface ChainResult {
  kept: Uint32Array;
  removed: Partial<Record<FilterReason, number>>;
}

/** Runs the filters in order, each on what the previous kept, counting what each removed. */
export async function runFilterChain(sortedUnique: Uint32Array, filters: readonly RecipientFilter[], context: FilterContext): Promise<ChainResult> {
  const removed: Partial<Record<FilterReason, number>> = {};
  let kept = sortedUnique;
  for (const filter of filters) {
    const before = kept.length;
    kept = await filter.apply(kept, context);
    removed[filter.reason] = (removed[filter.reason] ?? 0) + (before - kept.length);
  }
  return { kept, removed };
}
