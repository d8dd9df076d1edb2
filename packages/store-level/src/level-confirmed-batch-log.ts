import { ClassicLevel } from 'classic-level';
import { LRUCache } from 'lru-cache';
import type { ConfirmedBatch, ConfirmedBatchLog } from '@herald/core/ports';
import { encodeF64, key, prefixRange, readU64BE, tag, writeU64BE } from './keys';
import { Lifecycle, openLevelDb } from './lifecycle';

/**
 * The production ConfirmedBatchLog of an executor host, on LevelDB
 * (classic-level), in a directory of its own beside the offline lists.
 *
 * Key layout (tag byte, then big-endian numbers: task id and offset u64, unit u32):
 *
 *   'b' taskId unitNo offset -> to (u64 BE), delivered (u32 BE), offline (u32 BE)
 *   'x' taskId               -> expiresAt (f64 BE): when the task's records may go
 *
 * A record is one atomic batch of both keys. LevelDB hands every write to the
 * operating system before the call resolves (its log writer flushes each
 * record), so a record survives the executor being killed; only a crash of
 * the machine can lose the newest ones, and then a batch is delivered again
 * with the same idempotency key, never lost. Prune walks the 'x' keys (one per
 * task) and clears the records of each expired task by one range delete.
 *
 * Reads come from memory: the executor asks for every batch before it sends
 * it, and nearly always hears "not confirmed", so a LevelDB read per batch
 * (a thread-pool round trip on the executor's one busy thread) bought
 * nothing. The first `get` of a unit reads all its records in one range read;
 * from then on `record` keeps that copy current. The copy is exact because
 * this process alone writes the directory (LevelDB's lock). Past
 * MAX_CACHED_UNITS units the least recently asked is dropped and read again
 * if it is asked again.
 */

type Db = ClassicLevel<Buffer, Buffer>;

/** Units whose records are held in memory (16 bytes and a map entry per batch: 256 batches a unit of 2^20 in 4,096s). */
export const MAX_CACHED_UNITS = 1024;

/** One unit's records as read, then as recorded since; `loaded` settles once the range read is in. */
interface CachedUnit {
  batches: Map<number, ConfirmedBatch>;
  loaded: Promise<void>;
}

const EXPIRIES = key(tag('x'));
const batchKey = (taskId: number, unitNo: number, offset: number) =>
  key(tag('b'), { u64: taskId }, { u32: unitNo }, { u64: offset });
const unitBatches = (taskId: number, unitNo: number) => key(tag('b'), { u64: taskId }, { u32: unitNo });
const taskBatches = (taskId: number) => key(tag('b'), { u64: taskId });
const expiryKey = (taskId: number) => key(tag('x'), { u64: taskId });
const unitName = (taskId: number, unitNo: number) => `${taskId}:${unitNo}`;
const TASK_IN_EXPIRY_KEY = 1;
/** Where the offset sits in a batch key: after the tag, the task id (u64) and the unit (u32). */
const OFFSET_IN_BATCH_KEY = 1 + 8 + 4;

function encodeBatch(batch: ConfirmedBatch): Buffer {
  const value = Buffer.allocUnsafe(16);
  writeU64BE(value, batch.to, 0);
  value.writeUInt32BE(batch.delivered, 8);
  value.writeUInt32BE(batch.offline, 12);
  return value;
}

function decodeBatch(value: Buffer): ConfirmedBatch {
  return { to: readU64BE(value, 0), delivered: value.readUInt32BE(8), offline: value.readUInt32BE(12) };
}

export class LevelConfirmedBatchLog implements ConfirmedBatchLog {
  private readonly life = new Lifecycle('LevelConfirmedBatchLog');
  private readonly units = new LRUCache<string, CachedUnit>({ max: MAX_CACHED_UNITS });

  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the log in directory `path`; UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelConfirmedBatchLog> {
    const db: Db = await openLevelDb(path, 'LevelConfirmedBatchLog');
    return new LevelConfirmedBatchLog(db);
  }

  get(taskId: number, unitNo: number, offset: number): Promise<ConfirmedBatch | undefined> {
    return this.life.run('get', async () => {
      const unit = this.cachedUnit(taskId, unitNo);
      await unit.loaded;
      const batch = unit.batches.get(offset);
      return batch === undefined ? undefined : { ...batch };
    });
  }

  record(taskId: number, unitNo: number, offset: number, batch: ConfirmedBatch, expiresAt: number): Promise<void> {
    return this.life.run('record', async () => {
      await this.db.batch([
        { type: 'put', key: batchKey(taskId, unitNo, offset), value: encodeBatch(batch) },
        { type: 'put', key: expiryKey(taskId), value: encodeF64(expiresAt) },
      ]);
      // Looked up after the write: a range read begun before it may not have seen it.
      this.units.peek(unitName(taskId, unitNo))?.batches.set(offset, { ...batch });
    });
  }

  prune(now: number): Promise<number> {
    return this.life.run('prune', async () => {
      let dropped = 0;
      for await (const [expiry, value] of this.db.iterator(prefixRange(EXPIRIES))) {
        if (value.readDoubleBE(0) > now) continue;
        const taskId = readU64BE(expiry, TASK_IN_EXPIRY_KEY);
        const range = prefixRange(taskBatches(taskId));
        dropped += (await this.db.keys(range).all()).length;
        await this.db.clear(range);
        await this.db.del(expiry);
        this.forgetTask(taskId);
      }
      return dropped;
    });
  }

  /** Waits for calls in flight, then closes the database. Any later call fails with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }

  /** The unit's copy, its range read begun if it was not held. */
  private cachedUnit(taskId: number, unitNo: number): CachedUnit {
    const name = unitName(taskId, unitNo);
    const held = this.units.get(name);
    if (held !== undefined) return held;
    const batches = new Map<number, ConfirmedBatch>();
    const loaded = this.readUnit(taskId, unitNo, batches);
    const unit = { batches, loaded };
    this.units.set(name, unit);
    // A failed read is not kept: the next get reads again (this one rejects).
    loaded.catch(() => {
      if (this.units.peek(name) === unit) this.units.delete(name);
    });
    return unit;
  }

  private async readUnit(taskId: number, unitNo: number, into: Map<number, ConfirmedBatch>): Promise<void> {
    const entries = await this.db.iterator(prefixRange(unitBatches(taskId, unitNo))).all();
    for (const [stored, value] of entries) {
      const offset = readU64BE(stored, OFFSET_IN_BATCH_KEY);
      // A record written while the range was read is already here, and newer.
      if (!into.has(offset)) into.set(offset, decodeBatch(value));
    }
  }

  private forgetTask(taskId: number): void {
    const prefix = `${taskId}:`;
    for (const name of [...this.units.keys()]) if (name.startsWith(prefix)) this.units.delete(name);
  }
}
