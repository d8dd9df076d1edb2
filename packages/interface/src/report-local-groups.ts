import {
  classifyFate,
  deliveryAcrossHosts,
  loginAcrossHosts,
  type DeliveryFacts,
  type LoginFacts,
  type RecipientFate,
} from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import { deliveryOrderListIdOf, filteredListRuns, localGroupAt, type LocalGroup, type Task } from '@herald/core/task';
import { readRecipientListHeader, removedPathOf, RunsCursor, walkAudience, type ListRun } from '@herald/audience';
import { deliveryFactsAt, NO_RECORDS, withLocalGroup, type RecipientFateDeps } from './recipient-fate';
import { ReportChunks } from './report-chunks';
import { LoginCursor, RecordCursor } from './report-cursors';
import type { ReportLines } from './report-lines';

type ReportDeps = RecipientFateDeps & { uinLimit: number };

/** Where a walked uin sits in the list the task's units ranged over, and in which of its sorted runs. */
interface RunPlacement {
  /** The run holding the uin at its position (the walk's `position` is its place in the filtered list, if any). */
  place(uin: number, position: number | undefined): Promise<{ position: number; run: number } | undefined>;
  /** The row as written: the fate, decorated with what its run says of it. */
  row(fate: RecipientFate, run: number | undefined): RecipientFate;
  close(): Promise<void>;
}

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
    const placement: RunPlacement = {
      place: (_uin, position) =>
        Promise.resolve(position === undefined ? undefined : { position, run: localGroupAt(task, position)! }),
      row,
      close: () => Promise.resolve(),
    };
    return yield* runsReportChunks(task, groups.length, placement, { runs: groups }, after, deps, lines);
  }
  const runs = await RunsCursor.open(deps.lists.pathOf(deliveryOrderListIdOf(task.id)), groups, after);
  const placement: RunPlacement = {
    place: (uin, sorted) => (sorted === undefined ? Promise.resolve(undefined) : runs.positionOf(uin)),
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
  const placement: RunPlacement = {
    place: (_uin, position) =>
      Promise.resolve(position === undefined ? undefined : { position, run: position < sample ? 0 : 1 }),
    row: (fate) => fate,
    close: () => Promise.resolve(),
  };
  yield* runsReportChunks(task, 2, placement, { runs: filteredListRuns(task)! }, after, deps, lines);
}

/**
 * A report over a list whose positions are not in uin order: the records are
 * read through one forward cursor per sorted run, since inside a run
 * positions ascend with uins. Rows are decided one by one by classifyFate, as
 * recipientFate decides them; the plain path's per-record tails do not apply,
 * since neighbouring rows belong to different runs.
 */
async function* runsReportChunks(
  task: Task,
  runCount: number,
  placement: RunPlacement,
  walkOptions: { runs?: readonly ListRun[] },
  after: number | undefined,
  deps: ReportDeps,
  lines: ReportLines,
): AsyncGenerator<Buffer, void, undefined> {
  const listPath = deps.lists.pathOf(task.filteredListId!);
  const units = await deps.store.listUnits(task.id);
  const now = deps.clock.now();
  const log = deps.deliveryRecords;
  const records = log === undefined ? [] : Array.from({ length: runCount }, () => new RecordCursor(task.id, log));
  const logins = log === undefined ? undefined : new LoginCursor(task.id, after === undefined ? 0 : after + 1, log);
  const out = new ReportChunks(lines.head);
  out.text(lines.start);
  try {
    const walk = walkAudience(listPath, removedPathOf(listPath), {
      uinLimit: deps.uinLimit,
      ...walkOptions,
      ...(after === undefined ? {} : { after }),
    });
    for await (const { uin, position: listed, removal } of walk) {
      const found = await placement.place(uin, listed);
      const position = found?.position;
      let delivery: DeliveryFacts = { kind: 'none' };
      if (position !== undefined && log === undefined) delivery = { kind: 'unavailable', reason: NO_RECORDS };
      else if (position !== undefined) {
        const cursor = records[found!.run]!;
        if (cursor.behind(position)) await cursor.advanceTo(position);
        const facts = deliveryFactsAt(position, cursor.holding(position), units);
        delivery = deliveryAcrossHosts(facts, position, units, cursor.unreachable());
      }
      let login: LoginFacts = { kind: 'none' };
      if (delivery.kind === 'record' && !delivery.online && logins !== undefined) {
        if (logins.behind(uin)) await logins.advanceTo(uin);
        const outcome = logins.of(uin);
        login =
          outcome !== undefined
            ? { kind: 'record', outcome }
            : loginAcrossHosts(login, delivery.executor, logins.unreachable());
      }
      const fate = classifyFate({
        uin,
        taskState: task.state,
        expiresAt: task.expiresAt,
        now,
        filtered: true,
        position,
        removal,
        delivery,
        login,
      });
      out.text(lines.line(placement.row(fate, found?.run)));
      if (out.hasReady) yield* out.take();
    }
    yield* out.finish();
  } finally {
    for (const cursor of records) await cursor.close();
    await placement.close();
    await logins?.close();
  }
}
