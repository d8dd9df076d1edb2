import { ClassicLevel } from 'classic-level';
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
 */

type Db = ClassicLevel<Buffer, Buffer>;

const EXPIRIES = key(tag('x'));
const batchKey = (taskId: number, unitNo: number, offset: number) =>
  key(tag('b'), { u64: taskId }, { u32: unitNo }, { u64: offset });
const taskBatches = (taskId: number) => key(tag('b'), { u64: taskId });
const expiryKey = (taskId: number) => key(tag('x'), { u64: taskId });
const TASK_IN_EXPIRY_KEY = 1;

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

  private constructor(private readonly db: Db) {}

  /** Opens (creating if needed) the log in directory `path`; UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelConfirmedBatchLog> {
    const db: Db = await openLevelDb(path, 'LevelConfirmedBatchLog');
    return new LevelConfirmedBatchLog(db);
  }

  get(taskId: number, unitNo: number, offset: number): Promise<ConfirmedBatch | undefined> {
    return this.life.run('get', async () => {
      const value = await this.db.get(batchKey(taskId, unitNo, offset));
      return value === undefined ? undefined : decodeBatch(value);
    });
  }

  record(taskId: number, unitNo: number, offset: number, batch: ConfirmedBatch, expiresAt: number): Promise<void> {
    return this.life.run('record', () =>
      this.db.batch([
        { type: 'put', key: batchKey(taskId, unitNo, offset), value: encodeBatch(batch) },
        { type: 'put', key: expiryKey(taskId), value: encodeF64(expiresAt) },
      ]),
    );
  }

  prune(now: number): Promise<number> {
    return this.life.run('prune', async () => {
      let dropped = 0;
      for await (const [expiry, value] of this.db.iterator(prefixRange(EXPIRIES))) {
        if (value.readDoubleBE(0) > now) continue;
        const range = prefixRange(taskBatches(readU64BE(expiry, TASK_IN_EXPIRY_KEY)));
        dropped += (await this.db.keys(range).all()).length;
        await this.db.clear(range);
        await this.db.del(expiry);
      }
      return dropped;
    });
  }

  /** Waits for calls in flight, then closes the database. Any later call fails with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }
}
