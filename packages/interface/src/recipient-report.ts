import {
  bitAt,
  classifyFate,
  keptPositionFate,
  type DeliveryFacts,
  type KeptPositionFacts,
  type LoginFacts,
  type RemovalFacts,
} from '@herald/core/fate';
import type { ExecutionUnit, Task } from '@herald/core/task';
import { removedPathOf, walkAudienceChunks } from '@herald/audience';
import { deliveryFactsAt, NO_RECORDS, notPreprocessed, type RecipientFateDeps } from './recipient-fate';
import { LoginCursor, RecordCursor } from './report-cursors';
import type { ReportLines } from './report-lines';

export { CSV_LINES, ndjsonLines, REPORT_CSV_HEADER, type ReportLines } from './report-lines';

/** Characters gathered before a chunk is handed on: one write per row would cost more than the rows. */
const FLUSH_CHARS = 64 * 1024;

/** TASK_NOT_PREPROCESSED unless the task's list is filtered: the report walks it. */
export function assertReportable(task: Task): void {
  // A task that ended before filtering has no list in uin order to walk: its
  // recipients are each answered not_reached by the per-recipient route.
  if (task.filteredListId === null) throw notPreprocessed(task);
}

/**
 * The delivery report of a task (docs/recipient-truth.md, "The delivery
 * report") as text chunks of about 64 KiB: every distinct uin of its
 * audience, ascending, written with `lines`, with the fate the
 * per-recipient answer gives it. One pass over the filtered list and the
 * removed sets (walkAudienceChunks) beside one forward pass over the
 * delivery records and login outcomes, so memory holds one chunk of each and
 * one batch record whatever the task's size, and nothing is awaited per row.
 * The facts are gathered as recipientFate gathers them and decided by core:
 * a row of the filtered list with no duplicate copies and no login outcome
 * shares its fate with every such row of its batch record (keptPositionFate,
 * rendered once per record), every other row is classifyFate's. `now` is
 * read once: the report answers as of its start.
 */
export async function* reportText(
  task: Task,
  after: number | undefined,
  deps: RecipientFateDeps & { uinLimit: number },
  lines: ReportLines,
): AsyncGenerator<string, void, undefined> {
  assertReportable(task);
  const listPath = deps.lists.pathOf(task.filteredListId!);
  const rows = new ReportRows(task, deps.clock.now(), await deps.store.listUnits(task.id), lines);
  const log = deps.deliveryRecords;
  const records = log === undefined ? undefined : new RecordCursor(task.id, log);
  const logins = log === undefined ? undefined : new LoginCursor(task.id, after === undefined ? 0 : after + 1, log);
  let text = lines.start;
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
          text += rows.outsideList(uin, removal);
        } else if (records === undefined || logins === undefined) {
          text += rows.unrecorded(uin, position, removal);
        } else {
          if (records.behind(position)) await records.advanceTo(position);
          if (logins.behind(uin)) await logins.advanceTo(uin);
          text += rows.kept(uin, position, removal, records, logins);
        }
        if (text.length >= FLUSH_CHARS) {
          yield text;
          text = '';
        }
      }
    }
    if (text.length > 0) yield text;
  } finally {
    await records?.close();
    await logins?.close();
  }
}

const NO_LOGIN: LoginFacts = { kind: 'none' };
const NO_DELIVERY: DeliveryFacts = { kind: 'none' };

/**
 * One row's text from its facts. The fates of runs are cached by what they
 * depend on: the record in hand and the position's bit, or (no record
 * holding the position) the delivery facts' kind and reason.
 */
class ReportRows {
  private readonly base: Omit<KeptPositionFacts, 'delivery' | 'login'>;
  private tailsOf: { record: object; online: string | undefined; offline: string | undefined } | undefined;
  private readonly uncoveredTails = new Map<string, string>();

  constructor(
    task: Task,
    now: number,
    private readonly units: readonly ExecutionUnit[],
    private readonly lines: ReportLines,
  ) {
    this.base = { taskState: task.state, expiresAt: task.expiresAt, now };
  }

  /** A uin only the removed sets name. */
  outsideList(uin: number, removal: RemovalFacts): string {
    return this.lines.line(this.classify(uin, undefined, removal, NO_DELIVERY, NO_LOGIN));
  }

  /** A position when this profile keeps no delivery records. */
  unrecorded(uin: number, position: number, removal: RemovalFacts): string {
    const delivery: DeliveryFacts = { kind: 'unavailable', reason: NO_RECORDS };
    if (hasCopies(removal)) return this.lines.line(this.classify(uin, position, removal, delivery, NO_LOGIN));
    return this.lines.head(uin, position) + this.uncoveredTail(delivery);
  }

  /** A position, the cursors advanced to it. */
  kept(uin: number, position: number, removal: RemovalFacts, records: RecordCursor, logins: LoginCursor): string {
    const record = records.holding(position);
    const online = record !== undefined && bitAt(record.online, position - record.from);
    const outcome = record === undefined || online ? undefined : logins.of(uin);
    if (hasCopies(removal) || outcome !== undefined) {
      const delivery = deliveryFactsAt(position, record, this.units);
      const login: LoginFacts = outcome === undefined ? NO_LOGIN : { kind: 'record', outcome };
      return this.lines.line(this.classify(uin, position, removal, delivery, login));
    }
    const head = this.lines.head(uin, position);
    if (record === undefined) return head + this.uncoveredTail(deliveryFactsAt(position, record, this.units));
    if (this.tailsOf?.record !== record) this.tailsOf = { record, online: undefined, offline: undefined };
    const tails = this.tailsOf;
    if (online) return head + (tails.online ??= this.tail(deliveryFactsAt(position, record, this.units)));
    return head + (tails.offline ??= this.tail(deliveryFactsAt(position, record, this.units)));
  }

  private uncoveredTail(delivery: DeliveryFacts): string {
    const key = delivery.kind === 'unavailable' ? `unavailable: ${delivery.reason}` : delivery.kind;
    let tail = this.uncoveredTails.get(key);
    if (tail === undefined) this.uncoveredTails.set(key, (tail = this.tail(delivery)));
    return tail;
  }

  private tail(delivery: DeliveryFacts): string {
    return this.lines.tail(keptPositionFate({ ...this.base, delivery, login: NO_LOGIN }));
  }

  private classify(
    uin: number,
    position: number | undefined,
    removal: RemovalFacts,
    delivery: DeliveryFacts,
    login: LoginFacts,
  ) {
    return classifyFate({ ...this.base, uin, filtered: true, position, removal, delivery, login });
  }
}

function hasCopies(removal: RemovalFacts): boolean {
  return removal.recorded && removal.duplicateCopies > 0;
}
