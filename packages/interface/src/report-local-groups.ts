import type { RecipientFate } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import { deliveryOrderListIdOf, filteredListRuns, localGroupAt, type LocalGroup, type Task } from '@herald/core/task';
import { readRecipientListHeader, RunsCursor } from '@herald/audience';
import { withLocalGroup, type RecipientFateDeps } from './recipient-fate';
import type { ReportLines } from './report-lines';
import { NEEDS_READ, runsReportChunks, type Placed, type RunPlacement } from './report-runs';

type ReportDeps = RecipientFateDeps & { uinLimit: number };

/**
 * The report of a local-time task (docs/local-time.md): its filtered list is
 * its groups one after another, each sorted by uin, and the walk merges them
 * into uin order with each uin's own position; rows carry their group
 * (withLocalGroup). A task pre-processed by an earlier Herald has a filtered
 * list sorted by uin (its header says SORTED) and streamed a second file, its
 * delivery-order list: each row finds its position there (RunsCursor).
 */
export async function* localTimeReportChunks(
  task: Task,
  groups: readonly LocalGroup[],
  after: number | undefined,
  deps: ReportDeps,
  lines: ReportLines,
): AsyncGenerator<Buffer, void, undefined> {
  const now = deps.clock.now();
  const row = (fate: RecipientFate, run: number | undefined) =>
    run === undefined ? fate : withLocalGroup(fate, groups[run]!, task, now);
  const header = await readRecipientListHeader(deps.lists.pathOf(task.filteredListId!));
  if ((header.flags & ListFlags.SORTED) === 0) {
    const placement = placedByPosition((position) => groupAt(task, groups, position), row);
    return yield* runsReportChunks(task, groups.length, placement, { runs: groups }, after, deps, lines);
  }
  const runs = await RunsCursor.open(deps.lists.pathOf(deliveryOrderListIdOf(task.id)), groups, after);
  const placement: RunPlacement = {
    placeNow: (uin, sorted) => {
      if (sorted < 0) return undefined;
      const found = runs.positionInHand(uin);
      return found === 'read' ? NEEDS_READ : found;
    },
    place: (uin, sorted) => (sorted < 0 ? Promise.resolve(undefined) : runs.positionOf(uin)),
    row,
    close: () => runs.close(),
  };
  yield* runsReportChunks(task, groups.length, placement, {}, after, deps, lines);
}

/**
 * The report of a canary task (docs/rollouts.md): its filtered list is two
 * sorted runs, the sample [0, sample) then the rest. The walk merges them
 * into uin order with each uin's own position; the run is which side of the
 * sample boundary that position is on.
 */
export async function* canaryReportChunks(
  task: Task,
  sample: number,
  after: number | undefined,
  deps: ReportDeps,
  lines: ReportLines,
): AsyncGenerator<Buffer, void, undefined> {
  const placement = placedByPosition(
    (position) => (position < sample ? 0 : 1),
    (fate) => fate,
  );
  yield* runsReportChunks(task, 2, placement, { runs: filteredListRuns(task)! }, after, deps, lines);
}

/** A placement the walked position decides alone (the filtered list is the runs the units ranged over): no reads. */
function placedByPosition(runOf: (position: number) => number, row: RunPlacement['row']): RunPlacement {
  const placeNow = (_uin: number, listed: number): Placed | undefined =>
    listed < 0 ? undefined : { position: listed, run: runOf(listed) };
  return {
    placeNow,
    place: (uin, listed) => Promise.resolve(placeNow(uin, listed)),
    row,
    close: () => Promise.resolve(),
  };
}

/**
 * The group holding a position, as localGroupAt answers, by a binary search:
 * the groups are consecutive ranges of the list (docs/local-time.md) and the
 * merged walk meets them in no order, so a linear search would cost a
 * comparison per group for every row.
 */
function groupAt(task: Task, groups: readonly LocalGroup[], position: number): number {
  let lo = 0;
  let hi = groups.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (groups[mid]!.end <= position) lo = mid + 1;
    else hi = mid;
  }
  const group = groups[lo];
  return group !== undefined && group.start <= position ? lo : localGroupAt(task, position)!;
}
