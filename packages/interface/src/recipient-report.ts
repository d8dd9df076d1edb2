import {
  classifyFate,
  type DeliveryFacts,
  type DeliveryRecord,
  type LoginFacts,
  type LoginOutcome,
  type RecipientFate,
} from '@herald/core/fate';
import type { Task } from '@herald/core/task';
import { removedPathOf, walkAudience } from '@herald/audience';
import { deliveryFactsAt, NO_RECORDS, notPreprocessed, type RecipientFateDeps } from './recipient-fate';

/** TASK_NOT_PREPROCESSED unless the task's list is filtered: the report walks it. */
export function assertReportable(task: Task): void {
  // A task that ended before filtering has no list in uin order to walk: its
  // recipients are each answered not_reached by the per-recipient route.
  if (task.filteredListId === null) throw notPreprocessed(task);
}

/**
 * The delivery report of a task (docs/recipient-truth.md, "The delivery
 * report"): every distinct uin of its audience, ascending, with the fate the
 * per-recipient answer gives it. One pass over the filtered list and the
 * removed sets (walkAudience) beside one forward pass over the delivery
 * records, so memory holds one chunk of each and one batch record whatever
 * the task's size; core's classifyFate decides each row from the same facts
 * recipientFate gathers one by one.
 */
export async function* reportRows(
  task: Task,
  after: number | undefined,
  deps: RecipientFateDeps & { uinLimit: number },
): AsyncGenerator<RecipientFate, void, undefined> {
  assertReportable(task);
  const listPath = deps.lists.pathOf(task.filteredListId!);
  const units = await deps.store.listUnits(task.id);
  const records = new RunCursors(task.id, deps, task.report.canary?.sample);
  const logins = new LoginCursor(task.id, after === undefined ? 0 : after + 1, deps);
  try {
    const walk = walkAudience(listPath, removedPathOf(listPath), {
      uinLimit: deps.uinLimit,
      ...(after === undefined ? {} : { after }),
      // A canary's list is its sample then the rest (docs/rollouts.md): the walk merges the two runs.
      ...(task.report.canary === undefined ? {} : { sample: task.report.canary.sample }),
    });
    for await (const { uin, position, removal } of walk) {
      const delivery: DeliveryFacts =
        position === undefined ? { kind: 'none' } : deliveryFactsAt(position, await records.at(position), units);
      const unavailable = deps.deliveryRecords === undefined && position !== undefined;
      const login: LoginFacts =
        delivery.kind === 'record' && !delivery.online ? await logins.at(uin) : { kind: 'none' };
      yield classifyFate({
        uin,
        taskState: task.state,
        expiresAt: task.expiresAt,
        now: deps.clock.now(),
        filtered: true,
        position,
        removal,
        delivery: unavailable ? { kind: 'unavailable', reason: NO_RECORDS } : delivery,
        login,
      });
    }
  } finally {
    await records.close();
    await logins.close();
  }
}

/** The task's login outcomes read forward once, in step with ascending uins (loginOf's answer, without a get each). */
class LoginCursor {
  private iterator: AsyncIterator<LoginOutcome> | undefined;
  private current: LoginOutcome | undefined;
  private done = false;

  constructor(
    private readonly taskId: number,
    private readonly from: number,
    private readonly deps: RecipientFateDeps,
  ) {}

  async at(uin: number): Promise<LoginFacts> {
    const log = this.deps.deliveryRecords;
    if (log === undefined) return { kind: 'unavailable', reason: NO_RECORDS };
    this.iterator ??= log.loginsFrom(this.taskId, this.from)[Symbol.asyncIterator]();
    while (!this.done && (this.current === undefined || this.current.uin < uin)) {
      const next = await this.iterator.next();
      if (next.done === true) this.done = true;
      else this.current = next.value;
    }
    return this.current?.uin === uin ? { kind: 'record', outcome: this.current } : { kind: 'none' };
  }

  async close(): Promise<void> {
    await this.iterator?.return?.();
  }
}

/**
 * One record cursor per ascending run of the filtered list: one for most
 * tasks, two for a canary's (its sample, then the rest; docs/rollouts.md),
 * whose merged walk asks each run's positions in ascending order.
 */
class RunCursors {
  private readonly first: RecordCursor;
  private readonly rest: RecordCursor | undefined;

  constructor(
    taskId: number,
    deps: RecipientFateDeps,
    private readonly sample: number | undefined,
  ) {
    this.first = new RecordCursor(taskId, deps);
    this.rest = sample === undefined ? undefined : new RecordCursor(taskId, deps);
  }

  at(position: number): Promise<DeliveryRecord | undefined> {
    return this.rest !== undefined && position >= this.sample! ? this.rest.at(position) : this.first.at(position);
  }

  async close(): Promise<void> {
    await this.first.close();
    await this.rest?.close();
  }
}

/** The task's batch records read forward once, in step with ascending positions. */
class RecordCursor {
  private iterator: AsyncIterator<DeliveryRecord> | undefined;
  private current: DeliveryRecord | undefined;
  private done = false;

  constructor(
    private readonly taskId: number,
    private readonly deps: RecipientFateDeps,
  ) {}

  /** The record holding `position`, if any; positions must be asked in ascending order. */
  async at(position: number): Promise<DeliveryRecord | undefined> {
    const log = this.deps.deliveryRecords;
    if (log === undefined) return undefined;
    this.iterator ??= log.batchesFrom(this.taskId, position)[Symbol.asyncIterator]();
    while (!this.done && (this.current === undefined || this.current.from + this.current.count <= position)) {
      const next = await this.iterator.next();
      if (next.done === true) this.done = true;
      else this.current = next.value;
    }
    const record = this.current;
    return record !== undefined && record.from <= position && position < record.from + record.count
      ? record
      : undefined;
  }

  async close(): Promise<void> {
    await this.iterator?.return?.();
  }
}

/** The CSV header; docs/api.md describes each column. */
export const REPORT_CSV_HEADER = 'uin,position,fate,detail,at,executor,then_at\n';

/** One report row as a CSV line: times RFC 3339 (UTC), an absent value empty. */
export function reportCsvLine(row: RecipientFate): string {
  const cells = [String(row.uin), row.position === undefined ? '' : String(row.position), row.fate, ...rest(row)];
  return cells.map(csvCell).join(',') + '\n';
}

/** detail, at, executor, then_at. */
function rest(row: RecipientFate): [string, string, string, string] {
  switch (row.fate) {
    case 'not_in_audience':
      return ['', '', '', ''];
    case 'removed':
      return [row.link, '', '', ''];
    case 'delivered_online':
      return ['', iso(row.at), row.executor, ''];
    case 'queued_offline': {
      const { then } = row;
      const detail =
        then.outcome === 'dropped_at_login'
          ? `dropped_at_login: ${then.why}`
          : then.outcome === 'unknown'
            ? `unknown: ${then.reason}`
            : then.outcome;
      const thenAt = then.outcome === 'waiting' ? then.until : then.outcome === 'unknown' ? undefined : then.at;
      return [detail, iso(row.at), row.executor, thenAt === undefined ? '' : iso(thenAt)];
    }
    case 'not_reached':
      return [`${row.taskState}: ${row.why}`, '', '', ''];
    case 'unknown':
      return [row.reason, '', '', ''];
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** RFC 4180: a cell holding a comma, quote or line break is quoted, its quotes doubled. */
function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}
