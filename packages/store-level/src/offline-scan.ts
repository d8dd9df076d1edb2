/*
 * LevelOfflineStore's scanTask (described there): a task's pending uins, range
 * by range in ascending order, from one snapshot. A range whose records sit in
 * one shelf (every plain task's) is yielded record by record, as they are
 * disjoint and ascending; a range with several groups (a local-time task's)
 * interleaves them in uin order, so its records are merged into one ascending
 * array first (at most the range's 2^rangeBits uins).
 */
import { radixSortUint32, subtractSorted, uniqueSorted } from '@herald/core/uins';
import { RecordCursor, SortedUinCursor, type Db } from './offline-cursors';
import {
  acksOfTask,
  groupOfCountKey,
  RANGE_IN_TASK_RANGE_KEY,
  rangesOfTask,
  UIN_IN_ACK_BY_TASK_KEY,
} from './offline-keys';
import { decodeUins } from './uin-records';

/** One range's shelves of the task: each group's record count. */
interface RangeCounts {
  range: number;
  shelves: { group: number; count: number }[];
}

/** The task's 'k' keys, gathered range by range (a range's keys are adjacent: 'k' taskId range [group]). */
async function* countsByRange(iterator: {
  nextv(n: number): Promise<[Buffer, Buffer][]>;
}): AsyncGenerator<RangeCounts> {
  let current: RangeCounts | undefined;
  for (;;) {
    const chunk = await iterator.nextv(1024);
    if (chunk.length === 0) break;
    for (const [k, v] of chunk) {
      const range = k.readUInt32BE(RANGE_IN_TASK_RANGE_KEY);
      if (current !== undefined && current.range !== range) {
        yield current;
        current = undefined;
      }
      current ??= { range, shelves: [] };
      current.shelves.push({ group: groupOfCountKey(k), count: v.readUInt32BE(0) });
    }
  }
  if (current !== undefined) yield current;
}

/** Every uin of the range's several shelves, ascending and once each. */
async function mergedRange(records: RecordCursor, taskId: number, at: RangeCounts): Promise<Uint32Array> {
  const parts: Uint32Array[] = [];
  let total = 0;
  for (const { group, count } of at.shelves)
    for (const [, value] of await records.all({ range: at.range, taskId, group }, count)) {
      const uins = decodeUins(value);
      parts.push(uins);
      total += uins.length;
    }
  const all = new Uint32Array(total);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.length;
  }
  return uniqueSorted(radixSortUint32(all));
}

/** The task's pending uins (acknowledged ones left out), ascending, a chunk per record or per merged range. */
export async function* scanTaskRecords(db: Db, taskId: number): AsyncGenerator<Uint32Array> {
  const snapshot = db.snapshot();
  const ranges = db.iterator({ ...rangesOfTask(taskId), snapshot });
  const acks = new SortedUinCursor(db.keys({ ...acksOfTask(taskId), snapshot }), UIN_IN_ACK_BY_TASK_KEY);
  const records = new RecordCursor(db, snapshot);
  const pendingOf = async (uins: Uint32Array) =>
    subtractSorted(uins, await acks.within(uins[0]!, uins[uins.length - 1]!));
  try {
    for await (const at of countsByRange(ranges)) {
      if (at.shelves.length > 1) {
        const merged = await mergedRange(records, taskId, at);
        if (merged.length === 0) continue;
        const kept = await pendingOf(merged);
        if (kept.length > 0) yield kept;
        continue;
      }
      const { group, count } = at.shelves[0]!;
      for (const [, value] of await records.all({ range: at.range, taskId, group }, count)) {
        const kept = await pendingOf(decodeUins(value));
        if (kept.length > 0) yield kept;
      }
    }
  } finally {
    await Promise.allSettled([ranges.close(), acks.close(), records.close()]);
    await snapshot.close();
  }
}
