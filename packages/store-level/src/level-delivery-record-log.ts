import { ClassicLevel } from 'classic-level';
import {
  decodeDeliveryRecord,
  encodeDeliveryRecord,
  type DeliveryRecord,
  type LoginCounts,
  type LoginOutcome,
} from '@herald/core/fate';
import type { DeliveryRecordLog, LoginBucket, LoginBucketLog, PurgedRecords } from '@herald/core/ports';
import { key, readU64BE, tag } from './keys';
import { Lifecycle, openLevelDb } from './lifecycle';
import {
  bucketIn,
  bucketKey,
  bucketOf,
  bucketsKeptKey,
  countIn,
  decodeBucket,
  emptyBucket,
  encodeBucket,
} from './login-buckets';

/**
 * The DeliveryRecordLog on LevelDB (classic-level), in a directory of its own
 * (embedded: `<dataDir>/deliveries`, one for the process).
 *
 * Key layout (tag byte, then big-endian numbers, so a task's batches sort by position):
 *
 *   'd' taskId (u64) from (u64)  -> the batch record (core's encodeDeliveryRecord: 14 bytes + executor id + count/8,
 *                                   then, for a batch with dead letters only, its rejections)
 *   'l' taskId (u64) uin (u32)   -> login outcome (u8: 0 delivered, 1 expired, 2 over_frequency), at (f64 BE)
 *   'n' taskId (u64)             -> the task's login outcomes counted by kind (3 x f64 BE, in OUTCOMES order)
 *   'b', 'B'                     -> the same counts by bucket of 2^16 uins (login-buckets.ts)
 *
 * `purgeTask` deletes a task's key ranges (docs/recipient-truth.md, "Purging a task's records").
 *
 * `batchAt` is one reverse seek: the last 'd' key of the task at or before
 * the position. Writes resolve once LevelDB handed them to the operating
 * system, so a record survives the process being killed (as the
 * ConfirmedBatchLog's do).
 *
 * The 'n' counts are written in the same atomic batch as the outcomes they
 * count, so `loginCounts` is one read whatever the task's size (the funnel's
 * login stages). `recordLogins` calls run one at a time (a read of the
 * outcomes already there, so an outcome recorded again is counted once, then
 * the batch); a task whose outcomes predate the counts is counted once, by a
 * scan of its 'l' keys, the first time it is recorded or asked. The bucket
 * counts are written in the same batch, so `loginBuckets` always adds up to
 * `loginCounts`.
 */
type Db = ClassicLevel<Buffer, Buffer>;

const OUTCOMES = ['delivered', 'expired', 'over_frequency'] as const;
const batchKey = (taskId: number, from: number) => key(tag('d'), { u64: taskId }, { u64: from });
const loginKey = (taskId: number, uin: number) => key(tag('l'), { u64: taskId }, { u32: uin });
const countsKey = (taskId: number) => key(tag('n'), { u64: taskId });
const FROM_IN_KEY = 9;
/** Keys one step of a purge reads and deletes: its memory bound whatever the task's size. */
const PURGE_STEP = 10_000;
const UIN_IN_KEY = 9;

function decodeLogin(taskId: number, uin: number, value: Buffer): LoginOutcome {
  const outcome = OUTCOMES[value.readUInt8(0)];
  if (outcome === undefined) throw new RangeError(`login outcome of task ${taskId}, uin ${uin} is unreadable`);
  return { taskId, uin, outcome, at: value.readDoubleBE(1) };
}

/** The encoded record as a Buffer: a view of its bytes, not a copy of them. */
function recordValue(record: DeliveryRecord): Buffer {
  const value = encodeDeliveryRecord(record);
  return Buffer.from(value.buffer, value.byteOffset, value.length);
}

function encodeCounts(counts: LoginCounts): Buffer {
  const value = Buffer.allocUnsafe(8 * OUTCOMES.length);
  OUTCOMES.forEach((outcome, i) => value.writeDoubleBE(counts[outcome], 8 * i));
  return value;
}

function decodeCounts(value: Buffer): LoginCounts {
  return { delivered: value.readDoubleBE(0), expired: value.readDoubleBE(8), over_frequency: value.readDoubleBE(16) };
}

/** A task's buckets a login write changes, and whether they are its first kept (written with the 'B' key). */
interface TaskBuckets {
  buckets: Map<number, LoginBucket>;
  firstKept: boolean;
}

export class LevelDeliveryRecordLog implements DeliveryRecordLog, LoginBucketLog {
  private readonly life = new Lifecycle('LevelDeliveryRecordLog');
  /** recordLogins calls, one at a time: each reads the counts the one before wrote. */
  private loginWrites: Promise<unknown> = Promise.resolve();

  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the log in directory `path`; UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelDeliveryRecordLog> {
    return new LevelDeliveryRecordLog(await openLevelDb(path, 'LevelDeliveryRecordLog'));
  }

  recordBatch(record: DeliveryRecord): Promise<void> {
    return this.life.run('recordBatch', () => this.db.put(batchKey(record.taskId, record.from), recordValue(record)));
  }

  /** One LevelDB batch: one trip to the thread pool and one log write for all of them. */
  recordBatches(records: readonly DeliveryRecord[]): Promise<void> {
    return this.life.run('recordBatches', () =>
      this.db.batch(
        records.map((record) => ({
          type: 'put',
          key: batchKey(record.taskId, record.from),
          value: recordValue(record),
        })),
      ),
    );
  }

  batchAt(taskId: number, position: number): Promise<DeliveryRecord | undefined> {
    return this.life.run('batchAt', async () => {
      const range = { gte: batchKey(taskId, 0), lte: batchKey(taskId, position), reverse: true, limit: 1 };
      const [entry] = await this.db.iterator(range).all();
      if (entry === undefined) return undefined;
      const record = decodeDeliveryRecord(taskId, readU64BE(entry[0], FROM_IN_KEY), entry[1]);
      return position < record.from + record.count ? record : undefined;
    });
  }

  /** The record holding `position` (one reverse seek), then a forward iterator over the task's later ones. */
  async *batchesFrom(taskId: number, position: number): AsyncIterable<DeliveryRecord> {
    const holding = await this.batchAt(taskId, position);
    if (holding !== undefined) yield holding;
    const start = holding === undefined ? position : holding.from + 1;
    const range = { gte: batchKey(taskId, start), lte: batchKey(taskId, Number.MAX_SAFE_INTEGER) };
    const iterator = await this.life.run('batchesFrom', async () => this.db.iterator(range));
    try {
      for await (const [key, value] of iterator) yield decodeDeliveryRecord(taskId, readU64BE(key, FROM_IN_KEY), value);
    } finally {
      await iterator.close();
    }
  }

  recordLogins(outcomes: readonly LoginOutcome[]): Promise<void> {
    const write = this.loginWrites.then(() => this.life.run('recordLogins', () => this.writeLogins(outcomes)));
    this.loginWrites = write.catch(() => undefined);
    return write;
  }

  /** The outcomes and their tasks' counts in one batch; an outcome recorded again moves its count, not adds one. */
  private async writeLogins(outcomes: readonly LoginOutcome[]): Promise<void> {
    const latest = new Map<string, LoginOutcome>();
    for (const o of outcomes) latest.set(`${o.taskId}:${o.uin}`, o);
    const entries = [...latest.values()];
    const keys = entries.map((o) => loginKey(o.taskId, o.uin));
    const before = await this.db.getMany(keys);
    const counts = new Map<number, LoginCounts>();
    const buckets = new Map<number, TaskBuckets>();
    for (const taskId of new Set(entries.map((o) => o.taskId))) {
      counts.set(taskId, await this.countsOf(taskId));
      buckets.set(taskId, await this.bucketsToWrite(taskId, entries));
    }
    const ops: Array<{ type: 'put'; key: Buffer; value: Buffer }> = entries.map((o, i) => {
      const taskCounts = counts.get(o.taskId)!;
      const previous = before[i] === undefined ? undefined : decodeLogin(o.taskId, o.uin, before[i]!).outcome;
      if (previous !== undefined) taskCounts[previous] -= 1;
      taskCounts[o.outcome] += 1;
      countIn(bucketIn(buckets.get(o.taskId)!.buckets, o.uin), previous, o.outcome);
      const value = Buffer.allocUnsafe(9);
      value.writeUInt8(OUTCOMES.indexOf(o.outcome), 0);
      value.writeDoubleBE(o.at, 1);
      return { type: 'put', key: keys[i]!, value };
    });
    for (const [taskId, taskCounts] of counts)
      ops.push({ type: 'put', key: countsKey(taskId), value: encodeCounts(taskCounts) });
    for (const [taskId, { buckets: taskBuckets, firstKept }] of buckets) {
      for (const bucket of taskBuckets.values())
        ops.push({ type: 'put', key: bucketKey(taskId, bucket.bucket), value: encodeBucket(bucket) });
      if (firstKept) ops.push({ type: 'put', key: bucketsKeptKey(taskId), value: Buffer.alloc(0) });
    }
    await this.db.batch(ops);
  }

  /**
   * The task's buckets these outcomes fall in, as stored (one getMany); for a
   * task whose buckets are not kept yet, all of them, counted from its
   * outcomes (`firstKept`: written with the 'B' key).
   */
  private async bucketsToWrite(taskId: number, entries: readonly LoginOutcome[]): Promise<TaskBuckets> {
    if ((await this.db.get(bucketsKeptKey(taskId))) === undefined)
      return { buckets: await this.scanBuckets(taskId), firstKept: true };
    const touched = [...new Set(entries.filter((o) => o.taskId === taskId).map((o) => bucketOf(o.uin)))];
    const stored = await this.db.getMany(touched.map((bucket) => bucketKey(taskId, bucket)));
    const buckets = new Map<number, LoginBucket>();
    touched.forEach((bucket, i) => {
      const value = stored[i];
      buckets.set(bucket, value === undefined ? emptyBucket(bucket) : decodeBucket(bucketKey(taskId, bucket), value));
    });
    return { buckets, firstKept: false };
  }

  /** The task's buckets counted from its outcomes (a task recorded before buckets were kept), writes 0. */
  private async scanBuckets(taskId: number): Promise<Map<number, LoginBucket>> {
    const buckets = new Map<number, LoginBucket>();
    const range = { gte: loginKey(taskId, 0), lte: loginKey(taskId, 0xffff_ffff) };
    for await (const [key, value] of this.db.iterator(range)) {
      const uin = key.readUInt32BE(UIN_IN_KEY);
      bucketIn(buckets, uin).counts[decodeLogin(taskId, uin, value).outcome] += 1;
    }
    return buckets;
  }

  /** The task's buckets, ascending: one pass over its 'b' keys (or, before they are kept, its outcomes). */
  loginBuckets(taskId: number): Promise<LoginBucket[]> {
    return this.life.run('loginBuckets', async () => {
      // The 'B' key is written in the batch that first writes the buckets: without it they are not all there.
      if ((await this.db.get(bucketsKeptKey(taskId))) === undefined)
        return [...(await this.scanBuckets(taskId)).values()].sort((a, b) => a.bucket - b.bucket);
      const range = { gte: bucketKey(taskId, 0), lte: bucketKey(taskId, 0xffff_ffff) };
      const entries = await this.db.iterator(range).all();
      return entries.map(([key, value]) => decodeBucket(key, value));
    });
  }

  /** One read of the task's counts (a scan of its outcomes, once, for a task recorded before the counts). */
  loginCounts(taskId: number): Promise<LoginCounts> {
    return this.life.run('loginCounts', () => this.countsOf(taskId));
  }

  private async countsOf(taskId: number): Promise<LoginCounts> {
    const stored = await this.db.get(countsKey(taskId));
    if (stored !== undefined) return decodeCounts(stored);
    const counts: LoginCounts = { delivered: 0, expired: 0, over_frequency: 0 };
    const range = { gte: loginKey(taskId, 0), lte: loginKey(taskId, 0xffff_ffff) };
    for await (const value of this.db.values(range)) counts[decodeLogin(taskId, 0, value).outcome] += 1;
    return counts;
  }

  loginOf(taskId: number, uin: number): Promise<LoginOutcome | undefined> {
    return this.life.run('loginOf', async () => {
      const value = await this.db.get(loginKey(taskId, uin));
      return value === undefined ? undefined : decodeLogin(taskId, uin, value);
    });
  }

  /** One forward iterator over the task's 'l' keys from `uin`. */
  async *loginsFrom(taskId: number, uin: number): AsyncIterable<LoginOutcome> {
    const range = { gte: loginKey(taskId, uin), lte: loginKey(taskId, 0xffff_ffff) };
    const iterator = await this.life.run('loginsFrom', async () => this.db.iterator(range));
    try {
      for await (const [key, value] of iterator) yield decodeLogin(taskId, key.readUInt32BE(UIN_IN_KEY), value);
    } finally {
      await iterator.close();
    }
  }

  /**
   * Removes the task's batches, outcomes and counts, a bounded step at a
   * time. In turn with recordLogins, so a login walk's counts are not written
   * back over the purge halfway.
   */
  purgeTask(taskId: number): Promise<PurgedRecords> {
    const purge = this.loginWrites.then(() =>
      this.life.run('purgeTask', async () => {
        const batches = await this.clearKeys(batchKey(taskId, 0), batchKey(taskId, Number.MAX_SAFE_INTEGER));
        const logins = await this.clearKeys(loginKey(taskId, 0), loginKey(taskId, 0xffff_ffff));
        await this.clearKeys(bucketKey(taskId, 0), bucketKey(taskId, 0xffff_ffff));
        await this.db.batch([
          { type: 'del', key: countsKey(taskId) },
          { type: 'del', key: bucketsKeptKey(taskId) },
        ]);
        return { batches, logins };
      }),
    );
    this.loginWrites = purge.catch(() => undefined);
    return purge;
  }

  /** Deletes the keys in [gte, lte], PURGE_STEP at a time; returns how many. */
  private async clearKeys(gte: Buffer, lte: Buffer): Promise<number> {
    let removed = 0;
    for (;;) {
      const keys = await this.db.keys({ gte, lte, limit: PURGE_STEP }).all();
      if (keys.length === 0) return removed;
      await this.db.batch(keys.map((key) => ({ type: 'del' as const, key })));
      removed += keys.length;
    }
  }

  /** Waits for calls in flight, then closes the database. Any later call fails with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }
}
