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
import { removedPathOf, walkAudienceChunks, type AudienceChunk } from '@herald/audience';
import { deliveryFactsAt, NO_RECORDS, notPreprocessed, type RecipientFateDeps } from './recipient-fate';
import { ReportChunks } from './report-chunks';
import { LoginCursor, RecordCursor } from './report-cursors';
import { canaryReportChunks, localTimeReportChunks } from './report-local-groups';
import type { ReportLines } from './report-lines';
import { copiesOf } from './report-runs';
import { RecordTails, ReportVariants, slotCount, slotOf, tailMaps, withVariant } from './report-variants';

export {
  CSV_LINES,
  csvLinesOf,
  headText,
  ndjsonLines,
  REPORT_CSV_HEADER,
  VARIANT_CSV_LINES,
  VARIANT_REPORT_CSV_HEADER,
  type ReportLines,
} from './report-lines';

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
    for await (const chunk of walk) {
      const at: ChunkPlace = { row: 0, named: 0 };
      while (!rows.writeRun(chunk, at, records, logins)) {
        if (out.hasReady) {
          yield* out.take();
        } else {
          // The row at `at.row` is past a cursor: moved once per batch record or login outcome, never per row.
          const position = chunk.positions[at.row]!;
          if (records!.behind(position)) await records!.advanceTo(position);
          const uin = chunk.uins[at.row]!;
          if (logins!.behind(uin)) await logins!.advanceTo(uin);
        }
      }
    }
    yield* out.finish();
  } finally {
    await records?.close();
    await logins?.close();
  }
}

/** Where writeRun stopped in a chunk: its next row, and the next of the rows a removed set holds. */
interface ChunkPlace {
  row: number;
  named: number;
}

/** Records where writeRun stopped. */
function stopAt(at: ChunkPlace, row: number, named: number): false {
  at.row = row;
  at.named = named;
  return false;
}

/** ReportRows.plainRun's answer. */
interface PlainRun {
  from: number;
  end: number;
  online: Uint8Array;
  /** Rows of a uin below it have no login outcome and need no cursor moved. */
  loginsFrom: number;
  /** The record's tails, as `kept` renders them. */
  tails: RecordTails;
  /** Whether its online rows may take their tail (no rejections), and its offline ones (their host's outcomes were read). */
  onlineTail: boolean;
  offlineTail: boolean;
}

const NO_LOGIN: LoginFacts = { kind: 'none' };
const NO_DELIVERY: DeliveryFacts = { kind: 'none' };

/**
 * Writes one row from its facts. The tails of runs are cached by what they
 * depend on: the record in hand and the position's bit, or (no record
 * holding the position) the delivery facts' kind and reason; and for an
 * A/B task, a kept row's variant (its slot, report-variants.ts). A row with
 * a login outcome, or one the channel rejected, is rendered on its own.
 */
class ReportRows {
  private readonly base: Omit<KeptPositionFacts, 'delivery' | 'login'>;
  private readonly variants: ReportVariants | undefined;
  private readonly recordTails: RecordTails;
  /** Per slot. */
  private readonly uncoveredTails: Map<string, Buffer>[];
  /** The tails of rows outside the filtered list, by what outsideList's fate depends on (no variant: not kept). */
  private readonly outsideTails = new Map<string, Buffer>();

  constructor(
    task: Task,
    now: number,
    private readonly units: readonly ExecutionUnit[],
    private readonly lines: ReportLines,
    private readonly out: ReportChunks,
  ) {
    this.base = { taskState: task.state, expiresAt: task.expiresAt, now };
    this.variants = ReportVariants.of(task);
    this.recordTails = new RecordTails(slotCount(this.variants));
    this.uncoveredTails = tailMaps(this.variants);
  }

  /**
   * Writes the rows of `chunk` from `at` on in one synchronous pass, so the
   * row loop is plain optimised code rather than a generator's body. Stops at
   * the chunk's end (true), or (false) once a chunk of output is ready or
   * before a row that a cursor must first be moved to (an await, the caller's).
   * Since the cursors stay put during a pass, what the rows of the record in
   * hand share is read once (plainRun), and such a row (no removal named, no
   * login outcome, its tail already rendered) is its head and that tail.
   */
  writeRun(chunk: AudienceChunk, at: ChunkPlace, records?: RecordCursor, logins?: LoginCursor): boolean {
    const { uins, positions, named, removals, plain } = chunk;
    const out = this.out;
    const variants = this.variants;
    const recorded = records !== undefined && logins !== undefined;
    const run = recorded ? this.plainRun(records, logins) : undefined;
    let k = at.named;
    for (let i = at.row; i < uins.length; i++) {
      const uin = uins[i]!;
      const position = positions[i]!;
      if (run !== undefined && position >= run.from && position < run.end && uin < run.loginsFrom && named[k] !== i) {
        const online = bitAt(run.online, position - run.from);
        // An A/B task's rows take their variant's tail (one hash a row); any other task's rows all take slot 0.
        const slot = variants === undefined ? 0 : variants.slotOf(uin);
        const tail = online
          ? run.onlineTail
            ? run.tails.online[slot]
            : undefined
          : run.offlineTail
            ? run.tails.offline[slot]
            : undefined;
        if (tail !== undefined) {
          out.head(uin, position, 0);
          out.bytes(tail);
          if (out.hasReady) return stopAt(at, i + 1, k);
          continue;
        }
      }
      if (position >= 0 && recorded && (records.behind(position) || logins.behind(uin))) return stopAt(at, i, k);
      const removal = named[k] === i ? removals[k++]! : plain;
      if (position < 0) this.outsideList(uin, removal);
      else if (!recorded) this.unrecorded(uin, position, removal);
      else this.kept(uin, position, removal, records, logins);
      if (out.hasReady) return stopAt(at, i + 1, k);
    }
    stopAt(at, uins.length, k);
    return true;
  }

  /**
   * What the plain rows of the record in hand share during a pass: its range,
   * its online bits, the uin from which login outcomes may be found, and its
   * tails as `kept` renders them (filled by its first row of each kind and variant). A
   * batch with rejections, or whose host's outcomes could not be read, has
   * those rows decided by `kept` one by one.
   */
  private plainRun(records: RecordCursor, logins: LoginCursor): PlainRun | undefined {
    const record = records.current;
    if (record === undefined) return undefined;
    return {
      from: record.from,
      end: record.from + record.count,
      online: record.online,
      loginsFrom: logins.noOutcomeBelow(),
      tails: this.recordTails.hold(record),
      onlineTail: record.rejected === undefined,
      offlineTail: !logins.unreachable().has(record.executor),
    };
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
    this.out.bytes(this.uncoveredTail({ kind: 'unavailable', reason: NO_RECORDS }, slotOf(this.variants, uin)));
  }

  /** A position, the cursors advanced to it. */
  kept(uin: number, position: number, removal: RemovalFacts, records: RecordCursor, logins: LoginCursor): void {
    const record = records.holding(position);
    const slot = slotOf(this.variants, uin);
    this.out.head(uin, position, copiesOf(removal));
    if (record === undefined) {
      const facts = deliveryFactsAt(position, record, this.units);
      this.out.bytes(this.uncoveredTail(deliveryAcrossHosts(facts, position, this.units, records.unreachable()), slot));
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
      this.out.text(this.lines.tail(withVariant(fate, this.variants, slot)));
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
      this.out.text(this.lines.tail(withVariant(fate, this.variants, slot)));
      return;
    }
    const tails = this.recordTails.hold(record);
    const byBit = online ? tails.online : tails.offline;
    this.out.bytes((byBit[slot] ??= this.tail(deliveryFactsAt(position, record, this.units), slot)));
  }

  private uncoveredTail(delivery: DeliveryFacts, slot: number): Buffer {
    const key = delivery.kind === 'unavailable' ? `unavailable: ${delivery.reason}` : delivery.kind;
    const tails = this.uncoveredTails[slot]!;
    let tail = tails.get(key);
    if (tail === undefined) tails.set(key, (tail = this.tail(delivery, slot)));
    return tail;
  }

  private tail(delivery: DeliveryFacts, slot: number): Buffer {
    const fate = keptPositionFate({ ...this.base, delivery, login: NO_LOGIN });
    return Buffer.from(this.lines.tail(withVariant(fate, this.variants, slot)));
  }
}
