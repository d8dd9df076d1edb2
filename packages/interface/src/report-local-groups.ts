import { classifyFate, type DeliveryFacts, type LoginFacts } from '@herald/core/fate';
import { deliveryOrderListIdOf, type LocalGroup, type Task } from '@herald/core/task';
import { removedPathOf, RunsCursor, walkAudience } from '@herald/audience';
import { deliveryFactsAt, NO_RECORDS, withLocalGroup, type RecipientFateDeps } from './recipient-fate';
import { ReportChunks } from './report-chunks';
import { LoginCursor, RecordCursor } from './report-cursors';
import type { ReportLines } from './report-lines';

/**
 * The report of a local-time task (docs/local-time.md): it streamed its
 * delivery-order list, group after group, so its delivery records hold
 * positions of that list, not of the uin-sorted one the report walks. Each
 * row finds its position there (RunsCursor) and reads the records through
 * one forward cursor per group: inside a group, positions ascend with uins.
 * Rows are decided one by one by classifyFate, as recipientFate decides
 * them, and carry their group (withLocalGroup); the plain path's per-record
 * tails do not apply, since neighbouring rows belong to different groups.
 */
export async function* localTimeReportChunks(
  task: Task,
  groups: readonly LocalGroup[],
  after: number | undefined,
  deps: RecipientFateDeps & { uinLimit: number },
  lines: ReportLines,
): AsyncGenerator<Buffer, void, undefined> {
  const listPath = deps.lists.pathOf(task.filteredListId!);
  const units = await deps.store.listUnits(task.id);
  const now = deps.clock.now();
  const log = deps.deliveryRecords;
  const runs = await RunsCursor.open(deps.lists.pathOf(deliveryOrderListIdOf(task.id)), groups, after);
  const records = log === undefined ? [] : groups.map(() => new RecordCursor(task.id, log));
  const logins = log === undefined ? undefined : new LoginCursor(task.id, after === undefined ? 0 : after + 1, log);
  const out = new ReportChunks(lines.head);
  out.text(lines.start);
  try {
    const walk = walkAudience(listPath, removedPathOf(listPath), {
      uinLimit: deps.uinLimit,
      ...(after === undefined ? {} : { after }),
    });
    for await (const { uin, position: sorted, removal } of walk) {
      const found = sorted === undefined ? undefined : await runs.positionOf(uin);
      const position = found?.position;
      let delivery: DeliveryFacts = { kind: 'none' };
      if (position !== undefined && log === undefined) delivery = { kind: 'unavailable', reason: NO_RECORDS };
      else if (position !== undefined) {
        const cursor = records[found!.run]!;
        if (cursor.behind(position)) await cursor.advanceTo(position);
        delivery = deliveryFactsAt(position, cursor.holding(position), units);
      }
      let login: LoginFacts = { kind: 'none' };
      if (delivery.kind === 'record' && !delivery.online && logins !== undefined) {
        if (logins.behind(uin)) await logins.advanceTo(uin);
        const outcome = logins.of(uin);
        if (outcome !== undefined) login = { kind: 'record', outcome };
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
      const group = found === undefined ? undefined : groups[found.run];
      out.text(lines.line(group === undefined ? fate : withLocalGroup(fate, group, task)));
      if (out.hasReady) yield* out.take();
    }
    yield* out.finish();
  } finally {
    for (const cursor of records) await cursor.close();
    await runs.close();
    await logins?.close();
  }
}
