/**
 * Cross-site recovery, the pure part (docs/recovery.md). Every batch an
 * executor confirmed is on the reports topic as `{ taskId, unitNo, from, to,
 * delivered, offline, executor }`, where [from, to) are positions in the
 * task's filtered list (sorted, distinct). What the task still owes is the
 * filtered list minus the union of the reported ranges: the remainder.
 *
 * Reports come at least once, from any owner epoch, in any order and
 * overlapping (a unit re-run from an older checkpoint reports its batches
 * again, possibly cut differently), so ranges are merged, never summed.
 */
import { ValidationError } from '../errors';

/** Positions [from, to) in a filtered list. */
export interface ListRange {
  from: number;
  to: number;
}

/** One delivered batch as the executor reports it on the reports topic. */
export interface BatchReport extends ListRange {
  taskId: number;
  unitNo: number;
  /** Pushed to online users. */
  delivered: number;
  /** Appended to offline lists. */
  offline: number;
  executor: string;
}

/**
 * Reports that cannot describe the list they are applied to (a range past
 * its end, or a value that is not a batch report). Recovering from them would
 * skip or invent recipients, so recovery stops. `details.reason` says which.
 */
export class ReportsMismatchError extends ValidationError {
  constructor(message: string, details: Record<string, unknown>) {
    super(message, details);
  }
}

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Checks one reports-topic value for task `taskId`; a value of another task gives undefined. */
export function parseBatchReport(value: unknown, taskId: number): BatchReport | undefined {
  if (typeof value !== 'object' || value === null)
    throw new ReportsMismatchError('a report is not an object', { reason: 'malformed', value });
  const r = value as Record<string, unknown>;
  if (r.taskId !== taskId) return undefined;
  const ok =
    isCount(r.unitNo) &&
    isCount(r.from) &&
    isCount(r.to) &&
    r.from < r.to &&
    isCount(r.delivered) &&
    isCount(r.offline) &&
    typeof r.executor === 'string';
  if (!ok) throw new ReportsMismatchError(`a report of task ${taskId} is malformed`, { reason: 'malformed', value });
  return {
    taskId,
    unitNo: r.unitNo as number,
    from: r.from as number,
    to: r.to as number,
    delivered: r.delivered as number,
    offline: r.offline as number,
    executor: r.executor as string,
  };
}

/** The union of `ranges`, as sorted, disjoint, non-adjacent ranges. Empty ranges are ignored. */
export function mergeRanges(ranges: readonly ListRange[]): ListRange[] {
  const sorted = ranges.filter((r) => r.to > r.from).sort((a, b) => a.from - b.from || a.to - b.to);
  const merged: ListRange[] = [];
  for (const { from, to } of sorted) {
    const last = merged[merged.length - 1];
    if (last !== undefined && from <= last.to) last.to = Math.max(last.to, to);
    else merged.push({ from, to });
  }
  return merged;
}

/** [0, n) minus the merged ranges. A range past n is a ReportsMismatchError: the reports are not of this list. */
export function complementRanges(merged: readonly ListRange[], n: number): ListRange[] {
  const gaps: ListRange[] = [];
  let at = 0;
  for (const { from, to } of merged) {
    if (from < 0)
      throw new ReportsMismatchError(`a report covers [${from}, ${to}), before the start of the list`, {
        reason: 'before_list_start',
        from,
        to,
        listLength: n,
      });
    if (to > n)
      throw new ReportsMismatchError(`a report covers [${from}, ${to}), past the end of the list of ${n}`, {
        reason: 'past_list_end',
        from,
        to,
        listLength: n,
      });
    if (from > at) gaps.push({ from: at, to: from });
    at = Math.max(at, to);
  }
  if (at < n) gaps.push({ from: at, to: n });
  return gaps;
}

/** Total positions covered by disjoint ranges. */
export function rangesLength(ranges: readonly ListRange[]): number {
  let sum = 0;
  for (const r of ranges) sum += r.to - r.from;
  return sum;
}

/** The uins of `list` at the positions of disjoint, sorted ranges inside it, in list order. */
export function selectByRanges(list: Uint32Array, ranges: readonly ListRange[]): Uint32Array {
  const out = new Uint32Array(rangesLength(ranges));
  let at = 0;
  for (const { from, to } of ranges) {
    if (from < 0 || to > list.length || from > to)
      throw new ReportsMismatchError(`range [${from}, ${to}) is not inside a list of ${list.length}`, {
        reason: 'past_list_end',
        from,
        to,
        listLength: list.length,
      });
    out.set(list.subarray(from, to), at);
    at += to - from;
  }
  return out;
}

export interface Remainder {
  /** The reported ranges, merged. */
  reported: ListRange[];
  /** Recipients of the list inside the reported ranges: delivered or queued offline by the origin site. */
  reached: number;
  /** The positions nobody reported. */
  gaps: ListRange[];
  /** The uins at those positions: what the task still owes, sorted and distinct as the list is. */
  uins: Uint32Array;
}

/** The filtered list minus every reported range. */
export function computeRemainder(filteredList: Uint32Array, reports: readonly ListRange[]): Remainder {
  const reported = mergeRanges(reports);
  const gaps = complementRanges(reported, filteredList.length);
  return { reported, reached: rangesLength(reported), gaps, uins: selectByRanges(filteredList, gaps) };
}
