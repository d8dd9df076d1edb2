import { removedBetween } from '@herald/core/fate';
import type { FilterReason } from '@herald/core/task';
import type { Removal } from './removals';

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
   * `apply`, also answering what it removed (sorted), for a link that can
   * say so as it compacts (removals.ts): the chain then records it without
   * a copy of the link's input. Absent: the chain copies the input first.
   */
  applyRecording?(sortedUnique: Uint32Array, context: FilterContext): Promise<Removal>;
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
   * (docs/recipient-truth.md). `complete`: every link that ran has its set
   * (false only for a chain whose sets are known to miss a link).
   */
  removedSets?: { reason: FilterReason; uins: Uint32Array }[];
  complete?: boolean;
}

export interface ChainOptions {
  /** Keep what each link removed (a copy of its input while it runs, for a link without `applyRecording`). */
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
    if (options.record === true) {
      const removal = await applyRecording(filter, kept, context);
      kept = removal.kept;
      removedSets.push({ reason: filter.reason, uins: removal.removed });
    } else kept = await filter.apply(kept, context);
    countRemoved(removed, filter.reason, before - kept.length);
  }
  return options.record === true ? { kept, removed, removedSets, complete: true } : { kept, removed };
}

/** What a link keeps and removes: its own account of it, or a copy of its input compared with what it kept. */
async function applyRecording(filter: RecipientFilter, uins: Uint32Array, context: FilterContext): Promise<Removal> {
  if (filter.applyRecording !== undefined) return filter.applyRecording(uins, context);
  // A copy: links compact in place, so their input is overwritten by what they keep.
  const given = uins.slice();
  const kept = await filter.apply(uins, context);
  return { kept, removed: removedBetween(given, kept) };
}

/** Adds `n` to a reason's count (two links may share one). */
export function countRemoved(removed: Partial<Record<FilterReason, number>>, reason: FilterReason, n: number): void {
  removed[reason] = (removed[reason] ?? 0) + n;
}
