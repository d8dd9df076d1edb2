import { unreachableOf, type DeliveryRecord, type LoginOutcome } from '@herald/core/fate';
import type { DeliveryRecordLog } from '@herald/core/ports';

/**
 * The task's batch records read forward once, in step with ascending
 * positions: `current` is the first record ending after the last position
 * asked (it holds that position when it starts at or before it). The report
 * awaits only to move to the next record, once per batch, never per row.
 */
export class RecordCursor {
  private walk: AsyncIterable<DeliveryRecord> | undefined;
  private iterator: AsyncIterator<DeliveryRecord> | undefined;
  current: DeliveryRecord | undefined;
  private done = false;

  constructor(
    private readonly taskId: number,
    private readonly log: DeliveryRecordLog,
  ) {}

  /** Whether `current` may end at or before `position`: advanceTo must run before it is read. */
  behind(position: number): boolean {
    return !this.done && (this.current === undefined || this.current.from + this.current.count <= position);
  }

  /** Moves `current` to the first record ending after `position`; positions must be asked in ascending order. */
  async advanceTo(position: number): Promise<void> {
    this.walk ??= this.log.batchesFrom(this.taskId, position);
    this.iterator ??= this.walk[Symbol.asyncIterator]();
    while (this.behind(position)) {
      const next = await this.iterator.next();
      if (next.done === true) this.done = true;
      else this.current = next.value;
    }
  }

  /**
   * The hosts whose records the walk could not read so far (production: an
   * executor that did not answer): read once advanced, it covers every
   * position up to the one asked, since a host's records are read before any
   * later position's.
   */
  unreachable(): ReadonlySet<string> {
    return unreachableOf(this.walk ?? {});
  }

  /** The record holding `position`, once advanced to it. */
  holding(position: number): DeliveryRecord | undefined {
    const record = this.current;
    return record !== undefined && record.from <= position && position < record.from + record.count
      ? record
      : undefined;
  }

  async close(): Promise<void> {
    await this.iterator?.return?.();
  }
}

/**
 * The task's login outcomes read forward once, in step with ascending uins
 * (loginOf's answer without a get each): `current` is the first outcome of a
 * uin at or above the last one asked. Awaits once per outcome passed.
 */
export class LoginCursor {
  private readonly walk: AsyncIterable<LoginOutcome>;
  private readonly iterator: AsyncIterator<LoginOutcome>;
  current: LoginOutcome | undefined;
  private done = false;

  constructor(taskId: number, from: number, log: DeliveryRecordLog) {
    this.walk = log.loginsFrom(taskId, from);
    this.iterator = this.walk[Symbol.asyncIterator]();
  }

  /** Whether advanceTo(uin) must run before `current` is read for `uin`. */
  behind(uin: number): boolean {
    return !this.done && (this.current === undefined || this.current.uin < uin);
  }

  async advanceTo(uin: number): Promise<void> {
    while (this.behind(uin)) {
      const next = await this.iterator.next();
      if (next.done === true) this.done = true;
      else this.current = next.value;
    }
  }

  /** The hosts whose outcomes the walk could not read so far (as RecordCursor's). */
  unreachable(): ReadonlySet<string> {
    return unreachableOf(this.walk);
  }

  /**
   * Every uin below this one has no outcome and needs no advanceTo: the
   * current outcome's uin, or (all read) any uin, since the walk ends only
   * once past every uin asked so far.
   */
  noOutcomeBelow(): number {
    return this.done ? Infinity : (this.current?.uin ?? -1);
  }

  /** The outcome recorded for `uin`, once advanced to it. */
  of(uin: number): LoginOutcome | undefined {
    return this.current?.uin === uin ? this.current : undefined;
  }

  async close(): Promise<void> {
    await this.iterator.return?.();
  }
}
