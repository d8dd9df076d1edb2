import { ListFormatError, ValidationError } from '@herald/core';
import { ListFlags, type ListHeader } from '@herald/core/recipient-list';

/**
 * Positions [start, end) of a recipient list written as sorted runs, run
 * after run: a canary's sample then the rest (docs/rollouts.md), a
 * local-time task's groups (docs/local-time.md). A list's runs are
 * contiguous, in order, and cover it; an end past the list's count stands
 * for the count (so a last run may end at Infinity).
 */
export interface ListRun {
  start: number;
  end: number;
}

/**
 * How a list with this header is searched by uin: undefined when it is one
 * sorted run (SORTED|UNIQUE: `runs` are ignored, whatever they say), else
 * `runs` with their ends clipped to the count (UNIQUE without SORTED). Both
 * the lookups and the walk decide by this, so they agree on every list.
 * Throws LIST_BAD_HEADER for a list neither describes, LIST_TRUNCATED for a
 * run that starts past the list's end (the runs belong to a longer list).
 */
export function sortedRunsOf(
  header: ListHeader,
  path: string,
  runs: readonly ListRun[] | undefined,
): readonly ListRun[] | undefined {
  const sorted = ListFlags.SORTED | ListFlags.UNIQUE;
  if ((header.flags & sorted) === sorted) return undefined;
  if (runs === undefined)
    throw new ListFormatError('LIST_BAD_HEADER', `${path} is not sorted and unique: no position to search`);
  if ((header.flags & ListFlags.UNIQUE) === 0)
    throw new ListFormatError('LIST_BAD_HEADER', `${path} is not unique: its runs hold no position to search`);
  return runs.map(({ start, end }) => {
    const whole = (n: number) => Number.isSafeInteger(n) && n >= 0;
    if (!whole(start) || !(whole(end) || end === Infinity) || end < start)
      throw new ValidationError(`a list run must be [start, end) with 0 <= start <= end, got [${start}, ${end})`, {
        option: 'runs',
        start,
        end,
      });
    if (start > header.count)
      throw new ListFormatError('LIST_TRUNCATED', `${path} ends before its run [${start}, ${end})`, {
        declared: header.count,
        start,
        end,
      });
    return { start, end: Math.min(end, header.count) };
  });
}
