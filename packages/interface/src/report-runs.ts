import {
  bitAt,
  classifyFate,
  deliveryAcrossHosts,
  loginAcrossHosts,
  type DeliveryFacts,
  type LoginFacts,
  type RecipientFate,
  type RemovalFacts,
} from '@herald/core/fate';
import type { ExecutionUnit, Task } from '@herald/core/task';
import { removedPathOf, walkAudienceChunks, type AudienceChunk, type ListRun } from '@herald/audience';
import { deliveryFactsAt, NO_RECORDS, type RecipientFateDeps } from './recipient-fate';
import { ReportChunks } from './report-chunks';
import { LoginCursor, RecordCursor } from './report-cursors';
import type { ReportLines, TailFate } from './report-lines';
import { RecordTails, ReportVariants, slotCount, slotOf, tailMaps, withVariant } from './report-variants';

type ReportDeps = RecipientFateDeps & { uinLimit: number };

/** A walked uin's place in the list the task's units ranged over, and which of its sorted runs holds it. */
export interface Placed {
  position: number;
  run: number;
}

/** placeNow's answer when a read must come first: the row is placed by `place`, awaited. */
export const NEEDS_READ = Symbol('needs read');

/** Where a walked uin sits in the list the task's units ranged over, and in which of its sorted runs. */
export interface RunPlacement {
  /** Its place when known without awaiting (`listed`: its position in the filtered list, -1 when not there). */
  placeNow(uin: number, listed: number): Placed | undefined | typeof NEEDS_READ;
  /** Its place, reading what placeNow could not; asked only for a uin placeNow answered NEEDS_READ. */
  place(uin: number, listed: number): Promise<Placed | undefined>;
  /** The row as written: the fate, decorated with what its run says of it (its variant is added after). */
  row(fate: RecipientFate, run: number | undefined): RecipientFate;
  close(): Promise<void>;
}

/**
 * A report over a list whose positions are not in uin order (a local-time
 * task's groups, a canary's two runs): the records are read through one
 * forward cursor per sorted run, since inside a run positions ascend with
 * uins. Rows are written as the plain report writes them: a row whose facts
 * its run's batch record decides (no removal named, no login outcome, no
 * rejection) is its head and a tail rendered once per record, run, online
 * bit and (an A/B task) variant (RunsRows); any other row, or one a cursor
 * must first be moved to, is decided on its own by classifyFate, as
 * recipientFate decides it.
 */
export async function* runsReportChunks(
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
  const log = deps.deliveryRecords;
  const cursors =
    log === undefined
      ? undefined
      : {
          records: Array.from({ length: runCount }, () => new RecordCursor(task.id, log)),
          logins: new LoginCursor(task.id, after === undefined ? 0 : after + 1, log),
        };
  const out = new ReportChunks(lines.head);
  const rows = new RunsRows(task, deps.clock.now(), units, lines, out, placement, cursors);
  out.text(lines.start);
  try {
    const walk = walkAudienceChunks(listPath, removedPathOf(listPath), {
      uinLimit: deps.uinLimit,
      ...walkOptions,
      ...(after === undefined ? {} : { after }),
    });
    for await (const chunk of walk) {
      const at: RowPlace = { row: 0, named: 0, placed: NEEDS_READ };
      for (;;) {
        const stop = rows.writeRun(chunk, at);
        if (stop === 'ready') yield* out.take();
        else if (stop === 'end') break;
        else await rows.writeOne(chunk, at);
      }
      if (out.hasReady) yield* out.take();
    }
    yield* out.finish();
  } finally {
    for (const cursor of cursors?.records ?? []) await cursor.close();
    await placement.close();
    await cursors?.logins.close();
  }
}

/** Where writeRun stopped in a chunk: its next row, the next row a removed set holds, and that row's place if known. */
interface RowPlace {
  row: number;
  named: number;
  placed: Placed | undefined | typeof NEEDS_READ;
}

const NO_LOGIN: LoginFacts = { kind: 'none' };

/**
 * Writes the rows of a runs report. Tails are cached by what they depend
 * on: the run (its decoration) and the record its cursor holds with the
 * position's bit, or (no record holding the position) the run and the
 * delivery facts' kind and reason; and for an A/B task, the row's variant
 * (its slot, report-variants.ts).
 */
class RunsRows {
  private readonly base: { taskState: Task['state']; expiresAt: number; now: number };
  private readonly variants: ReportVariants | undefined;
  /** Per run: the record its cursor holds. */
  private readonly recordTails: RecordTails[];
  /** Per slot. */
  private readonly otherTails: Map<string, Buffer>[];

  constructor(
    task: Task,
    now: number,
    private readonly units: readonly ExecutionUnit[],
    private readonly lines: ReportLines,
    private readonly out: ReportChunks,
    private readonly placement: RunPlacement,
    private readonly cursors: { records: RecordCursor[]; logins: LoginCursor } | undefined,
  ) {
    this.base = { taskState: task.state, expiresAt: task.expiresAt, now };
    this.variants = ReportVariants.of(task);
    this.recordTails = (cursors?.records ?? []).map(() => new RecordTails(slotCount(this.variants)));
    this.otherTails = tailMaps(this.variants);
  }

  /**
   * Writes the rows of `chunk` from `at` on in one synchronous pass while
   * each is a head and a cached tail. Stops at the chunk's end ('end'), once
   * a chunk of output is ready ('ready'), or before a row to be decided on
   * its own ('one': writeOne, which may await), its place kept in `at`.
   */
  writeRun(chunk: AudienceChunk, at: RowPlace): 'end' | 'ready' | 'one' {
    const { uins, positions, named } = chunk;
    const out = this.out;
    // Rows of the plain removal facts are shown without copies; were they ever recorded with some, each row is decided.
    const plainRows = copiesOf(chunk.plain) === 0;
    const k = at.named;
    for (let i = at.row; i < uins.length; i++) {
      const uin = uins[i]!;
      const placed = this.placement.placeNow(uin, positions[i]!);
      const shared = plainRows && named[k] !== i && placed !== NEEDS_READ && placed !== undefined;
      const tail = shared ? this.sharedTail(uin, placed, chunk.plain) : undefined;
      if (!shared || tail === undefined) {
        at.row = i;
        at.placed = placed;
        return 'one';
      }
      out.head(uin, placed.position, 0);
      out.bytes(tail);
      if (out.hasReady) {
        at.row = i + 1;
        return 'ready';
      }
    }
    at.row = uins.length;
    return 'end';
  }

  /**
   * The tail a row shares with its run's others, when its cursors are in
   * place and its facts are its record's (or its lack of one): undefined
   * when it must be decided on its own.
   */
  private sharedTail(uin: number, placed: Placed, plain: RemovalFacts): Buffer | undefined {
    const { position, run } = placed;
    // An A/B task's rows take their variant's tail (one hash a row); any other task's rows all take slot 0.
    const slot = slotOf(this.variants, uin);
    const cursors = this.cursors;
    if (cursors === undefined)
      return this.otherTail(uin, placed, slot, plain, { kind: 'unavailable', reason: NO_RECORDS });
    const cursor = cursors.records[run]!;
    if (cursor.behind(position)) return undefined;
    const record = cursor.holding(position);
    if (record === undefined) {
      const facts = deliveryFactsAt(position, undefined, this.units);
      return this.otherTail(
        uin,
        placed,
        slot,
        plain,
        deliveryAcrossHosts(facts, position, this.units, cursor.unreachable()),
      );
    }
    // A batch with dead letters (rare): its rows are decided one by one.
    if (record.rejected !== undefined) return undefined;
    const online = bitAt(record.online, position - record.from);
    const { logins } = cursors;
    if (!online && (uin >= logins.noOutcomeBelow() || logins.unreachable().has(record.executor))) return undefined;
    const tails = this.recordTails[run]!.hold(record);
    const byBit = online ? tails.online : tails.offline;
    return (byBit[slot] ??= this.tail(uin, placed, slot, plain, deliveryFactsAt(position, record, this.units)));
  }

  /** The tail of a row no record holds (or with no records kept), by its run, slot and delivery facts. */
  private otherTail(uin: number, placed: Placed, slot: number, plain: RemovalFacts, delivery: DeliveryFacts): Buffer {
    const { run } = placed;
    const key = delivery.kind === 'unavailable' ? `${run}:unavailable: ${delivery.reason}` : `${run}:${delivery.kind}`;
    const tails = this.otherTails[slot]!;
    let tail = tails.get(key);
    if (tail === undefined) tails.set(key, (tail = this.tail(uin, placed, slot, plain, delivery)));
    return tail;
  }

  /** The row classifyFate, the run's decoration and the slot's variant give these facts, without its head. */
  private tail(uin: number, placed: Placed, slot: number, removal: RemovalFacts, delivery: DeliveryFacts): Buffer {
    const { position, run } = placed;
    const fate = classifyFate({ ...this.base, uin, filtered: true, position, removal, delivery, login: NO_LOGIN });
    const row = withVariant(this.placement.row(fate, run), this.variants, slot);
    const { uin: _uin, position: _position, duplicateCopiesRemoved: _copies, ...rest } = row;
    return Buffer.from(this.lines.tail(rest as TailFate));
  }

  /** The row at `at`, decided on its own as recipientFate decides it, the cursors moved to it first. */
  async writeOne(chunk: AudienceChunk, at: RowPlace): Promise<void> {
    const i = at.row;
    const uin = chunk.uins[i]!;
    const listed = chunk.positions[i]!;
    const removal = chunk.named[at.named] === i ? chunk.removals[at.named++]! : chunk.plain;
    const found = at.placed === NEEDS_READ ? await this.placement.place(uin, listed) : at.placed;
    at.row = i + 1;
    at.placed = NEEDS_READ;
    const position = found?.position;
    let delivery: DeliveryFacts = { kind: 'none' };
    if (position !== undefined && this.cursors === undefined) delivery = { kind: 'unavailable', reason: NO_RECORDS };
    else if (position !== undefined) {
      const cursor = this.cursors!.records[found!.run]!;
      if (cursor.behind(position)) await cursor.advanceTo(position);
      const facts = deliveryFactsAt(position, cursor.holding(position), this.units);
      delivery = deliveryAcrossHosts(facts, position, this.units, cursor.unreachable());
    }
    let login: LoginFacts = NO_LOGIN;
    if (delivery.kind === 'record' && !delivery.online && this.cursors !== undefined) {
      const { logins } = this.cursors;
      if (logins.behind(uin)) await logins.advanceTo(uin);
      const outcome = logins.of(uin);
      login =
        outcome !== undefined
          ? { kind: 'record', outcome }
          : loginAcrossHosts(login, delivery.executor, logins.unreachable());
    }
    const fate = classifyFate({ ...this.base, uin, filtered: true, position, removal, delivery, login });
    const row = this.placement.row(fate, found?.run);
    // Only a row in the filtered list was given a variant, as the per-recipient answer says.
    this.out.text(
      this.lines.line(found === undefined ? row : withVariant(row, this.variants, slotOf(this.variants, uin))),
    );
  }
}

/** The extra copies dedupe removed of a uin, as classifyFate reports them. */
export function copiesOf(removal: RemovalFacts): number {
  return removal.recorded ? removal.duplicateCopies : 0;
}
