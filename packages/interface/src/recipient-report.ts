import {
  bitAt,
  classifyFate,
  deliveryAcrossHosts,
  keptPositionFate,
  loginAcrossHosts,
  rejectionAt,
  type DeliveryFacts,
  type Fate,
  type KeptPositionFacts,
  type LoginFacts,
  type RemovalFacts,
} from '@herald/core/fate';
import type { ExecutionUnit, Task } from '@herald/core/task';
import { removedPathOf, walkAudienceChunks } from '@herald/audience';
import { deliveryFactsAt, NO_RECORDS, notPreprocessed, type RecipientFateDeps } from './recipient-fate';
import { ReportChunks } from './report-chunks';
import { LoginCursor, RecordCursor } from './report-cursors';
import { canaryReportChunks, localTimeReportChunks } from './report-local-groups';
import type { ReportLines } from './report-lines';

export { CSV_LINES, headText, ndjsonLines, REPORT_CSV_HEADER, type ReportLines } from './report-lines';

/** TASK_NOT_PREPROCESSED unless the task's list is filtered: the report walks it. */
export function assertReportable(task: Task): void {
  // A task that ended before filtering has no list in uin order to walk: its
  // recipients are each answered not_reached by the per-recipient route.
  if (task.filteredListId === null) throw notPreprocessed(task);
}

/**
 * The delivery report of a task (docs/recipient-truth.md, "The delivery
 * report") as chunks of about 64 KiB: every distinct uin of its audience,
 * ascending, written with `lines`, with the fate the per-recipient answer
 * gives it. One pass over the filtered list and the removed sets
 * (walkAudienceChunks) beside one forward pass over the delivery records and
 * login outcomes, so memory holds one chunk of each and one batch record
 * whatever the task's size, and nothing is awaited per row. The facts are
 * gathered as recipientFate gathers them and decided by core: a row of the
 * filtered list is its head and keptPositionFate's tail (classifyFate's
 * answer split in two), the tail rendered once per batch record for the rows
 * without a login outcome; a row outside the list is classifyFate's. `now`
 * is read once: the report answers as of its start. A local-time task's
 * records follow its delivery order instead: localTimeReportChunks.
 */
export async function* reportChunks(
  task: Task,
  after: number | undefined,
  deps: RecipientFateDeps & { uinLimit: number },
  lines: ReportLines,
): AsyncGenerator<Buffer, void, undefined> {
  assertReportable(task);
  const groups = task.report.localGroups;
  if (groups !== undefined) return yield* localTimeReportChunks(task, groups, after, deps, lines);
  // A canary's filtered list is two sorted runs, its sample then the rest (docs/rollouts.md).
  const canary = task.report.canary;
  if (canary !== undefined) return yield* canaryReportChunks(task, canary.sample, after, deps, lines);
  const listPath = deps.lists.pathOf(task.filteredListId!);
  const out = new ReportChunks(lines.head);
  const rows = new ReportRows(task, deps.clock.now(), await deps.store.listUnits(task.id), lines, out);
  const log = deps.deliveryRecords;
  const records = log === undefined ? undefined : new RecordCursor(task.id, log);
  const logins = log === undefined ? undefined : new LoginCursor(task.id, after === undefined ? 0 : after + 1, log);
  out.text(lines.start);
  try {
    const walk = walkAudienceChunks(listPath, removedPathOf(listPath), {
      uinLimit: deps.uinLimit,
      ...(after === undefined ? {} : { after }),
    });
    for await (const { uins, positions, named, removals, plain } of walk) {
      let k = 0;
      for (let i = 0; i < uins.length; i++) {
        const uin = uins[i]!;
        const position = positions[i]!;
        const removal = named[k] === i ? removals[k++]! : plain;
        if (position < 0) {
          rows.outsideList(uin, removal);
        } else if (records === undefined || logins === undefined) {
          rows.unrecorded(uin, position, removal);
        } else {
          if (records.behind(position)) await records.advanceTo(position);
          if (logins.behind(uin)) await logins.advanceTo(uin);
          rows.kept(uin, position, removal, records, logins);
        }
        if (out.hasReady) yield* out.take();
      }
    }
    yield* out.finish();
  } finally {
    await records?.close();
    await logins?.close();
  }
}

const NO_LOGIN: LoginFacts = { kind: 'none' };
const NO_DELIVERY: DeliveryFacts = { kind: 'none' };

/**
 * Writes one row from its facts. The tails of runs are cached by what they
 * depend on: the record in hand and the position's bit, or (no record
 * holding the position) the delivery facts' kind and reason. A row with a
 * login outcome, or one the channel rejected, is rendered on its own.
 */
class ReportRows {
  private readonly base: Omit<KeptPositionFacts, 'delivery' | 'login'>;
  private tailsOf: { record: object; online: Buffer | undefined; offline: Buffer | undefined } | undefined;
  private readonly uncoveredTails = new Map<string, Buffer>();
  /** The tails of rows outside the filtered list, by what outsideList's fate depends on. */
  private readonly outsideTails = new Map<string, Buffer>();

  constructor(
    task: Task,
    now: number,
    private readonly units: readonly ExecutionUnit[],
    private readonly lines: ReportLines,
    private readonly out: ReportChunks,
  ) {
    this.base = { taskState: task.state, expiresAt: task.expiresAt, now };
  }

  /** A uin only the removed sets name: its fate depends on its removal facts alone, so their tail is rendered once. */
  outsideList(uin: number, removal: RemovalFacts): void {
    const copies = copiesOf(removal);
    const key = removal.recorded ? `${removal.reason ?? ''}:${removal.complete}:${copies > 0}` : 'unrecorded';
    let tail = this.outsideTails.get(key);
    if (tail === undefined) {
      const {
        uin: _uin,
        duplicateCopiesRemoved: _copies,
        ...fate
      } = classifyFate({
        ...this.base,
        uin,
        filtered: true,
        position: undefined,
        removal,
        delivery: NO_DELIVERY,
        login: NO_LOGIN,
      });
      this.outsideTails.set(key, (tail = Buffer.from(this.lines.tail(fate as Fate))));
    }
    this.out.head(uin, -1, copies);
    this.out.bytes(tail);
  }

  /** A position when this profile keeps no delivery records. */
  unrecorded(uin: number, position: number, removal: RemovalFacts): void {
    this.out.head(uin, position, copiesOf(removal));
    this.out.bytes(this.uncoveredTail({ kind: 'unavailable', reason: NO_RECORDS }));
  }

  /** A position, the cursors advanced to it. */
  kept(uin: number, position: number, removal: RemovalFacts, records: RecordCursor, logins: LoginCursor): void {
    const record = records.holding(position);
    this.out.head(uin, position, copiesOf(removal));
    if (record === undefined) {
      const facts = deliveryFactsAt(position, record, this.units);
      this.out.bytes(this.uncoveredTail(deliveryAcrossHosts(facts, position, this.units, records.unreachable())));
      return;
    }
    const online = bitAt(record.online, position - record.from);
    // A batch with dead letters (rare): its rejected rows are decided one by one, as those with a login outcome.
    if (online && record.rejected !== undefined && rejectionAt(record.rejected, position - record.from) !== undefined) {
      const fate = keptPositionFate({
        ...this.base,
        delivery: deliveryFactsAt(position, record, this.units),
        login: NO_LOGIN,
      });
      this.out.text(this.lines.tail(fate));
      return;
    }
    const outcome = online ? undefined : logins.of(uin);
    // An offline row without an outcome whose host's outcomes could not be read: unknown, rendered on its own.
    const login: LoginFacts | undefined =
      outcome !== undefined
        ? { kind: 'record', outcome }
        : online
          ? undefined
          : loginAcrossHosts(NO_LOGIN, record.executor, logins.unreachable());
    if (login !== undefined && login.kind !== 'none') {
      const fate = keptPositionFate({ ...this.base, delivery: deliveryFactsAt(position, record, this.units), login });
      this.out.text(this.lines.tail(fate));
      return;
    }
    if (this.tailsOf?.record !== record) this.tailsOf = { record, online: undefined, offline: undefined };
    const tails = this.tailsOf;
    if (online) this.out.bytes((tails.online ??= this.tail(deliveryFactsAt(position, record, this.units))));
    else this.out.bytes((tails.offline ??= this.tail(deliveryFactsAt(position, record, this.units))));
  }

  private uncoveredTail(delivery: DeliveryFacts): Buffer {
    const key = delivery.kind === 'unavailable' ? `unavailable: ${delivery.reason}` : delivery.kind;
    let tail = this.uncoveredTails.get(key);
    if (tail === undefined) this.uncoveredTails.set(key, (tail = this.tail(delivery)));
    return tail;
  }

  private tail(delivery: DeliveryFacts): Buffer {
    return Buffer.from(this.lines.tail(keptPositionFate({ ...this.base, delivery, login: NO_LOGIN })));
  }
}

/** The extra copies dedupe removed of a uin, as classifyFate reports them. */
function copiesOf(removal: RemovalFacts): number {
  return removal.recorded ? removal.duplicateCopies : 0;
}
