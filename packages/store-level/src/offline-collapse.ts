/*
 * Collapse scopes in LevelOfflineStore (described there): inside one range,
 * an appended slice of task T leaves out the users a newer task of T's scope
 * holds, and takes T's users out of the older tasks' records of its scope.
 * Everything goes into the append's one atomic batch; the caller holds the
 * scope's lock, so no other append or purge of the scope interleaves.
 */
import type { ChainedBatch, KeyIterator } from 'classic-level';
import { subtractSorted } from '@herald/core/uins';
import { readU64BE } from './keys';
import { RecordCursor, type Db } from './offline-cursors';
import {
  encodeCount,
  indexKey,
  recordKey,
  SCOPES,
  scopeKey,
  startsWith,
  taskInScopeKey,
  taskRangeKey,
  tasksOfScope,
  UNGROUPED,
} from './offline-keys';
import { encodeUins } from './uin-records';

type Batch = ChainedBatch<Db, Buffer, Buffer>;

/**
 * Lists the tasks of one scope per range through one iterator over the 'g'
 * keys, seeking range to range: an append visits many ranges, and a new
 * iterator per range would cost more than the seek.
 */
export class ScopeRivals {
  private keys: KeyIterator<Db, Buffer> | undefined;
  private readonly offset: number;

  constructor(
    private readonly db: Db,
    private readonly scope: string,
    private readonly taskId: number,
  ) {
    this.offset = taskInScopeKey(scope);
  }

  /** The other tasks of the scope with records in `range`, split around this append's task. */
  async in(range: number): Promise<{ older: number[]; newer: number[] }> {
    this.keys ??= this.db.keys(SCOPES);
    const { gte: prefix } = tasksOfScope(range, this.scope);
    this.keys.seek(prefix);
    const ids: number[] = [];
    for (;;) {
      const chunk = await this.keys.nextv(16);
      if (chunk.length === 0) break;
      const inScope = chunk.filter((k) => startsWith(k, prefix));
      for (const k of inScope) ids.push(readU64BE(k, this.offset));
      if (inScope.length < chunk.length) break;
    }
    const others = ids.filter((id) => id !== this.taskId);
    return { older: others.filter((id) => id < this.taskId), newer: others.filter((id) => id > this.taskId) };
  }

  async close(): Promise<void> {
    await this.keys?.close();
  }
}

/** A scope's tasks keep ungrouped records only (LevelOfflineStore.append ignores the group under a scope). */
const ungrouped = (range: number, taskId: number) => ({ range, taskId, group: UNGROUPED });

async function recordCount(db: Db, taskId: number, range: number): Promise<number> {
  const value = await db.get(taskRangeKey(taskId, range));
  return value === undefined ? 0 : value.readUInt32BE(0);
}

/** `uins` less every user a newer task's records in `range` hold (delivered ones too: the newest was theirs). */
export async function withoutNewer(
  db: Db,
  records: RecordCursor,
  range: number,
  newer: readonly number[],
  uins: Uint32Array,
): Promise<Uint32Array> {
  let kept = uins;
  for (const taskId of newer) {
    if (kept.length === 0) break;
    const count = await recordCount(db, taskId, range);
    if (count === 0) continue;
    const overlapped = await records.overlapping(ungrouped(range, taskId), kept[0]!, kept[kept.length - 1]!, count);
    for (const record of overlapped) kept = subtractSorted(kept, record.uins);
  }
  return kept;
}

/**
 * Takes `uins` out of the older tasks' records in `range`: each overlapped
 * record is rewritten without them (its remainder stays inside its old span,
 * so spans stay disjoint), and a task left with no record in the range loses
 * its index, count and scope entries there. Returns the entries removed.
 */
export async function supersedeOlder(
  db: Db,
  records: RecordCursor,
  batch: Batch,
  at: { range: number; scope: string },
  older: readonly number[],
  uins: Uint32Array,
): Promise<number> {
  const { range, scope } = at;
  let superseded = 0;
  for (const taskId of older) {
    const count = await recordCount(db, taskId, range);
    if (count === 0) continue;
    const overlapped = await records.overlapping(ungrouped(range, taskId), uins[0]!, uins[uins.length - 1]!, count);
    let emptied = 0;
    for (const record of overlapped) {
      const rest = subtractSorted(record.uins, uins);
      if (rest.length === record.uins.length) continue;
      superseded += record.uins.length - rest.length;
      // Delete first: the remainder may keep the record's key, and the later op wins.
      batch.del(record.key);
      if (rest.length > 0) batch.put(recordKey(range, taskId, rest[0]!), encodeUins(rest));
      else emptied++;
    }
    if (emptied === 0) continue;
    if (emptied < count) {
      batch.put(taskRangeKey(taskId, range), encodeCount(count - emptied));
      continue;
    }
    batch.del(taskRangeKey(taskId, range));
    batch.del(indexKey(range, taskId));
    batch.del(scopeKey(range, scope, taskId));
  }
  return superseded;
}
