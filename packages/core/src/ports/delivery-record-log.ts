import type { DeliveryRecord } from '../fate/delivery-record';
import type { LoginOutcome } from '../fate/fate';
import type { LoginCounts } from '../fate/funnel';
import type { ExecutionUnit } from '../task/model';

/** What purgeTask removed: the task's batch records and login outcomes. */
export interface PurgedRecords {
  batches: number;
  logins: number;
}

/**
 * Per-recipient truth of delivery (docs/recipient-truth.md): for each
 * confirmed batch, which of its positions in the task's filtered list went
 * online and which were queued offline, and which of the online ones the
 * channel rejected for good and why (`DeliveryRecord.rejected`, kept in the
 * same record: written and read with it); for each offline entry a login
 * walk settled, what became of it.
 *
 * Contract:
 * - `recordBatch` resolves only once the record would survive the process
 *   being killed; the executor calls it before it reports the batch, so every
 *   position a unit checkpoint has passed has its record. The same (task,
 *   from) recorded again replaces it (a batch delivered again).
 * - `recordBatches` writes several records as one atomic write (all or
 *   none), resolving as `recordBatch` does: the executor groups the records
 *   of a few consecutive batches into one write (executor/src/record-group.ts).
 * - `batchAt(taskId, position, units?)` returns the record whose positions
 *   [from, from + count) hold `position`, or undefined. `units`: the task's
 *   units as the caller just read them, for a log that asks the unit's
 *   executor first (production); a log that keeps every record ignores them.
 * - `batchesFrom(taskId, position)` yields the task's records in position
 *   order, from the one holding `position` (or the first after it) on, read
 *   as it goes: the delivery report walks them beside the filtered list.
 * - `recordLogins` resolves once durable; the login walk calls it before it
 *   removes the entries, so a removed entry always has its outcome.
 * - `loginOf` returns the outcome recorded for (task, uin), or undefined;
 *   `loginsFrom(taskId, uin)` yields the task's outcomes of uins at or after
 *   `uin`, ascending, read as it goes (the delivery report's walk).
 * - `loginCounts(taskId)` returns how many of the task's outcomes are of each
 *   kind, an outcome recorded again for the same (task, uin) counted once
 *   (by its latest kind); cheap whatever the task's size (the funnel asks it
 *   on every request).
 * - `purgeTask(taskId)` removes every record of the task (batches, login
 *   outcomes, their counts) and says how many it removed; a task with none
 *   removes nothing. For a task that is over: a batch or login walk of the
 *   task running meanwhile may write again. Idempotent.
 */
export interface DeliveryRecordLog {
  recordBatch(record: DeliveryRecord): Promise<void>;
  recordBatches(records: readonly DeliveryRecord[]): Promise<void>;
  batchAt(
    taskId: number,
    position: number,
    units?: readonly Pick<ExecutionUnit, 'start' | 'end' | 'executorId'>[],
  ): Promise<DeliveryRecord | undefined>;
  batchesFrom(taskId: number, position: number): AsyncIterable<DeliveryRecord>;
  recordLogins(outcomes: readonly LoginOutcome[]): Promise<void>;
  loginOf(taskId: number, uin: number): Promise<LoginOutcome | undefined>;
  loginsFrom(taskId: number, uin: number): AsyncIterable<LoginOutcome>;
  loginCounts(taskId: number): Promise<LoginCounts>;
  purgeTask(taskId: number): Promise<PurgedRecords>;
  close(): Promise<void>;
}

/** How many low bits of a uin a login bucket spans: bucket b holds uins [b * 2^16, (b + 1) * 2^16). */
export const LOGIN_BUCKET_BITS = 16;

/** A task's login outcomes of one bucket of uins, counted by kind, and how many writes changed them. */
export interface LoginBucket {
  bucket: number;
  counts: LoginCounts;
  /**
   * Outcomes written into the bucket, an outcome recorded again included:
   * two reads with the same `writes` (and counts) saw the same outcomes, so a
   * count merged across executors from them may be kept.
   */
  writes: number;
}

/**
 * A DeliveryRecordLog that also keeps its login outcomes' counts by bucket of
 * uins, so counting a task's recipients once across executors (after a
 * failover moved a unit, docs/recipient-truth.md "On the production profile")
 * merges only the buckets where two executors hold outcomes.
 *
 * Contract: `loginBuckets(taskId)` returns the task's buckets that hold at
 * least one outcome, ascending by bucket, each counted as `loginCounts`
 * counts (an outcome recorded again counted once, by its latest kind); their
 * counts add up to `loginCounts(taskId)`. Read whatever the task's size in
 * one pass over at most 65,536 small entries.
 */
export interface LoginBucketLog {
  loginBuckets(taskId: number): Promise<LoginBucket[]>;
}
