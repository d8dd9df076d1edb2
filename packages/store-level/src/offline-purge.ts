/*
 * Purging expired tasks from LevelOfflineStore (described there). The 'e'
 * index lists tasks by expiry; a task is purged range by range (its records,
 * index, count and scope entries in the range go in one batch), then its
 * acknowledgements, then its 'e' entry, so a purge stopped by its bound (or a
 * crash) leaves a consistent store and the next call carries on. Also the
 * one-off indexing, at open, of a store written before the 'e' index.
 */
import type { OfflinePurge } from '@herald/core/ports';
import { EMPTY, readU64BE } from './keys';
import type { Db } from './offline-cursors';
import {
  ackKey,
  acksOfTask,
  decodeExpiry,
  encodeExpiry,
  EXPIRY_INDEX_KEY,
  expiredBy,
  expiryKey,
  indexKey,
  RANGE_IN_TASK_RANGE_KEY,
  TASK_IN_INDEX_KEY,
  rangesOfTask,
  recordPrefix,
  scopeKey,
  countsOfTaskRange,
  groupRecordsOf,
  TASK_IN_EXPIRY_KEY,
  UIN_IN_ACK_BY_TASK_KEY,
} from './offline-keys';
import { prefixRange } from './keys';

/** Runs `fn` under the lock the task's appends take (its scope's, or its own). */
export type TaskLock = (taskId: number, scope: string | undefined, fn: () => Promise<void>) => Promise<void>;

/** Ranges or acknowledgements read per step. */
const STEP = 256;

export async function purgeExpired(db: Db, lock: TaskLock, now: number, maxRecords: number): Promise<OfflinePurge> {
  const purged = { entries: 0, records: 0, done: false };
  const expiring = db.iterator(expiredBy(now));
  try {
    for (;;) {
      const chunk = await expiring.nextv(STEP);
      if (chunk.length === 0) break;
      for (const [k, v] of chunk) {
        const taskId = readU64BE(k, TASK_IN_EXPIRY_KEY);
        const { expiresAt, scope } = decodeExpiry(v);
        if (expiresAt > now) continue;
        let finished = false;
        await lock(taskId, scope, async () => {
          finished = await purgeTask(db, { taskId, expiresAt, scope }, purged, maxRecords);
        });
        if (!finished || purged.records >= maxRecords) return purged;
      }
    }
  } finally {
    await expiring.close();
  }
  purged.done = true;
  return purged;
}

/** Purges the task until `purged.records` reaches `maxRecords`; true once nothing of it is left. */
async function purgeTask(
  db: Db,
  task: { taskId: number; expiresAt: number; scope: string | undefined },
  purged: OfflinePurge,
  maxRecords: number,
): Promise<boolean> {
  const { taskId, scope } = task;
  for (;;) {
    const ranges = await db.iterator({ ...rangesOfTask(taskId), limit: STEP }).all();
    if (ranges.length === 0) break;
    for (const range of new Set(ranges.map(([k]) => k.readUInt32BE(RANGE_IN_TASK_RANGE_KEY)))) {
      await purgeRange(db, { taskId, range, scope }, purged);
      if (purged.records >= maxRecords) return false;
    }
  }
  for (;;) {
    const acks = await db.keys({ ...acksOfTask(taskId), limit: STEP }).all();
    if (acks.length === 0) break;
    const batch = db.batch();
    for (const key of acks) {
      batch.del(key);
      batch.del(ackKey(key.readUInt32BE(UIN_IN_ACK_BY_TASK_KEY), taskId));
    }
    await batch.write();
    purged.records += acks.length;
    if (purged.records >= maxRecords) return false;
  }
  await db.del(expiryKey(task.expiresAt, taskId));
  return true;
}

/**
 * Removes the task's records in one range, every group's, with their counts,
 * index and scope entries, in one batch: a range goes whole or not at all.
 */
async function purgeRange(
  db: Db,
  at: { taskId: number; range: number; scope: string | undefined },
  purged: OfflinePurge,
): Promise<void> {
  const { taskId, range, scope } = at;
  const batch = db.batch();
  const records = [prefixRange(recordPrefix(range, taskId)), groupRecordsOf(range, taskId)];
  for (const bounds of records)
    for (const [key, value] of await db.iterator(bounds).all()) {
      batch.del(key);
      purged.entries += value.byteLength / 4;
      purged.records++;
    }
  for (const key of await db.keys(countsOfTaskRange(taskId, range)).all()) batch.del(key);
  batch.del(indexKey(range, taskId));
  if (scope !== undefined) batch.del(scopeKey(range, scope, taskId));
  await batch.write();
}

/**
 * A store written before the 'e' index: every task in 'i' gets its 'e' entry
 * (without a scope: none had one), once, so purgeExpired sees old tasks too.
 */
export async function indexExpiries(db: Db): Promise<void> {
  const seen = new Set<number>();
  const batch = db.batch();
  for await (const [k, v] of db.iterator({ gte: Buffer.from('i'), lt: Buffer.from('j') })) {
    const taskId = readU64BE(k, TASK_IN_INDEX_KEY);
    if (seen.has(taskId)) continue;
    seen.add(taskId);
    const expiresAt = v.readDoubleBE(0);
    batch.put(expiryKey(expiresAt, taskId), encodeExpiry(expiresAt, undefined));
  }
  batch.put(EXPIRY_INDEX_KEY, EMPTY);
  await batch.write();
}
