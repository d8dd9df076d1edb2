import { removedBetween } from '@herald/core/fate';
import type { FilterReason } from '@herald/core/task';

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
  /**
   * Whether the link runs for this task: the account's attributes and the
   * task's mode decide (a follower check for followers-only accounts, a
   * targeting condition for targeted tasks). Absent: it always runs. A link
   * that does not run is left out of the counts, so a report shows the
   * reasons its chain had.
   */
  runsFor?(context: FilterContext): Promise<boolean>;
  apply(sortedUnique: Uint32Array, context: FilterContext): Promise<Uint32Array>;
  /**
   * Marks the link that removes repeats of a sorted list and nothing else
   * (the first link): the parallel runner does it in its workers, on each
   * chunk as it sorts it.
   */
  readonly dedupes?: true;
  /**
   * For a link that only subtracts sorted sets (blacklist, no-resend): the
   * sets, in turn, each sorted and distinct. `apply` must keep exactly what
   * subtracting them all keeps. The parallel runner hands each set to every
   * chunk's worker instead of calling `apply`, and stops asking for more
   * once no chunk has anyone left.
   */
  subtracts?(context: FilterContext): AsyncIterable<Uint32Array>;
}

export interface ChainResult {
  kept: Uint32Array;
  removed: Partial<Record<FilterReason, number>>;
  /**
   * With `record`: what each link that ran removed, sorted, in chain order
   * (dedupe: each repeat's extra copies), for the task's removed-sets file
   * (docs/recipient-truth.md). `complete` is false when some link's removals
   * were not recorded one by one (the parallel runner's in-worker links).
   */
  removedSets?: { reason: FilterReason; uins: Uint32Array }[];
  complete?: boolean;
}

export interface ChainOptions {
  /** Keep what each link removed (a copy of its input per link while it runs). */
  record?: boolean;
}

/** Runs the filters in order, each on what the previous kept, counting what each removed. */
export async function runFilterChain(
  sortedUnique: Uint32Array,
  filters: readonly RecipientFilter[],
  context: FilterContext,
  options: ChainOptions = {},
): Promise<ChainResult> {
  const removed: Partial<Record<FilterReason, number>> = {};
  const removedSets: { reason: FilterReason; uins: Uint32Array }[] = [];
  let kept = sortedUnique;
  for (const filter of filters) {
    if (filter.runsFor !== undefined && !(await filter.runsFor(context))) continue;
    const before = kept.length;
    // A copy: links compact in place, so their input is overwritten by what they keep.
    const given = options.record === true ? kept.slice() : undefined;
    kept = await filter.apply(kept, context);
    countRemoved(removed, filter.reason, before - kept.length);
    if (given !== undefined) removedSets.push({ reason: filter.reason, uins: removedBetween(given, kept) });
  }
  return options.record === true ? { kept, removed, removedSets, complete: true } : { kept, removed };
}

/** Adds `n` to a reason's count (two links may share one). */
export function countRemoved(removed: Partial<Record<FilterReason, number>>, reason: FilterReason, n: number): void {
  removed[reason] = (removed[reason] ?? 0) + n;
}
