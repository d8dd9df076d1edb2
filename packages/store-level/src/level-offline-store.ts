import { ConfigError, ErrorCodes, HeraldError, ValidationError } from '@herald/core';
import { isSortedUint32, uniqueSorted } from '@herald/core/uins';
import type { OfflineAppendOptions, OfflineEntry, OfflinePurge, OfflineStore } from '@herald/core/ports';
import { EMPTY } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { checkTaskId, checkUin } from './offline-checks';
import { Lifecycle, toHeraldError, openLevelDb } from './lifecycle';
import { holdsUin, RecordCursor, type Db } from './offline-cursors';
import {
  ackByTaskKey,
  ackKey,
  acksOfUin,
  encodeCount,
  encodeExpiry,
  encodeIndex,
  EXPIRY_INDEX_KEY,
  expiryKey,
  groupsOfIndex,
  indexKey,
  indexOfRange,
  MAX_GROUP,
  RANGE_BITS_KEY,
  scopeKey,
  shelfCountKey,
  shelfRecordKey,
  UNGROUPED,
} from './offline-keys';
import { encodeUins, splitByRange, unionSorted } from './uin-records';
import { ScopeRivals, supersedeOlder, withoutNewer } from './offline-collapse';
import { indexExpiries, purgeExpired } from './offline-purge';
import { scanTaskRecords } from './offline-scan';
import { DEFAULT_MAX_CACHED_SPANS, RecordSpans } from './offline-spans';
import { FoundEntries } from './offline-found';
import { holdingTasks, unacknowledged } from './offline-holds';

/**
 * The embedded OfflineStore, on LevelDB (classic-level).
 *
 * A put per recipient would cap fan-out throughput, so one write carries a
 * whole batch of users, while a login still reads one user's entries with a
 * few seeks. The uin space is cut into ranges of 2^rangeBits uins
 * (range = uin >>> rangeBits; with rangeBits 32 everything is range 0).
 *
 * Key layout (tag byte, then big-endian numbers; range and uins u32, task ids u64):
 *
 *   'r' range taskId firstUin -> the sorted uins (u32 LE, back to back) of one
 *                                record: an appended batch's uins in that range
 *   'q' range taskId group firstUin -> the same, for an append with a group
 *   'i' range taskId          -> expiresAt (f64 BE), then the groups the task has
 *                                there if any (offline-keys.ts encodeIndex):
 *                                which tasks have records in a range
 *   'k' taskId range [group]  -> count (u32 BE): the task's records in that range
 *                                (and group) (scanTask, merges)
 *   'a' uin taskId            -> '' : the user acknowledged the task's entry
 *   'b' taskId uin            -> '' : the same acknowledgement, by task (scanTask)
 *   'g' range scope taskId    -> '' : the task has records in the range and a collapse scope
 *   'e' expiryMs taskId       -> expiresAt (f64 BE) and the scope (UTF-16LE, if any): tasks by expiry
 *   'm' "rangeBits"           -> u8 : the layout parameter this store was created with
 *   'm' "expiryIndex"         -> '' : 'e' covers every task (a store from before 'e' is indexed at open)
 *
 * append(task, uins): the batch is split at range boundaries into one record
 * per range; all keys of one append go in one atomic batch. The 'i' and 'e'
 * values are put only when they change (a group joins the range, another
 * expiry), as far as the task's spans in memory know (offline-spans.ts). Invariant: the
 * records of one shelf, (range, task) or (range, task, group), cover disjoint
 * uin spans [first, last]. Groups exist because a local-time task's groups
 * interleave in uin order: sharing one shelf, each group's append would merge
 * with the range's record of every earlier group and rewrite it; apart, an
 * append never touches another group's records (docs/local-time.md). Appends
 * without a group, and every append under a collapse scope, stay ungrouped
 * ('r', the layout before groups, which older stores hold). A batch
 * that overlaps existing records of its task (a replay, or a retried unit
 * whose batches were cut differently) is merged with them: the overlapped
 * records are deleted and their union written as one record, in the same
 * batch, and the range's count in 'k' adjusted. So a replay changes nothing
 * and no entry is ever lost. Which records a batch overlaps is known in
 * memory (offline-spans.ts: each task's record spans, read from disk once per
 * task and range, then kept in step by the appends), so an append that
 * overlaps nothing, as a fan-out's batches do, only writes; the overlapped
 * ones are read with one reverse seek from the batch's last uin, walking back
 * while spans still reach the batch's first uin. Appends of one task run
 * under that task's in-process lock (LevelDB's LOCK file keeps other
 * processes out), so the read-merge-write cannot interleave.
 *
 * pending(uin): read the 'i' entries of the uin's range (tasks in id order),
 * and for each task and each of its groups there seek in reverse from 'r'
 * range task uin (or 'q' range task group uin) (lte, limit 1): by the
 * invariant, that record (the last of the shelf with firstUin <= uin) is the
 * only one of the shelf that can hold the uin; binary-search it. Acknowledged
 * tasks ('a' uin *) are skipped.
 *
 * acknowledge(uin, tasks) writes 'a' and 'b' for each entry the user has;
 * acknowledging an entry that does not exist writes nothing, so it cannot
 * hide a later append. A replayed append leaves acknowledgements in place.
 * The entries the user's last pending found are taken as read, unless a
 * purge or collapse may have removed some since (offline-found.ts).
 *
 * scanTask(task) (offline-scan.ts): walk the 'k' index, read each range's
 * records in key order (disjoint and ascending within a shelf, by the
 * invariant; the count says how many, so the read never spills into another
 * task's records; a range with several groups merged into one ascending
 * array), drop uins found in the task's 'b' acknowledgements (one forward
 * cursor), and yield a Uint32Array per record or merged range, all from one
 * snapshot.
 *
 * Collapse scopes (offline-collapse.ts): an append with a scope runs under
 * the scope's lock instead of the task's, and per range lists the scope's
 * other tasks there ('g'). Its uins that a newer task's records hold are left
 * out (that user's newest entry is the newer one, delivered or not); its
 * remaining uins are taken out of the older tasks' records overlapping the
 * slice (each rewritten without them, in the same batch). So at most one task
 * per scope holds a user, whatever order appends come in, and superseded
 * entries take no room. The cost is per (slice, rival task): a seek and the
 * overlapped records, on the append path; appends without a scope pay nothing.
 *
 * purgeExpired(now, max) (offline-purge.ts) walks 'e' up to now and removes
 * each expired task whole, range by range, then its acknowledgements, then
 * its 'e' entry: delivered entries of expired tasks are reclaimed too.
 */

export interface LevelOfflineStoreOptions {
  /**
   * log2 of the number of uins per range, 8..32. Smaller ranges mean smaller
   * records for a login to read, larger ones fewer keys per append. Fixed when
   * the store is created; reopening with another value fails.
   * @defaultValue 16
   */
  rangeBits?: number;
  /**
   * How many record spans (about 16 bytes each) the store keeps in memory so
   * an append finds the records its batch overlaps without reading
   * (offline-spans.ts); the least recently appended tasks' go first beyond
   * it. 0 keeps none: every append reads its task's records from disk.
   * @defaultValue 2^20
   */
  maxCachedSpans?: number;
}

export const DEFAULT_RANGE_BITS = 16;

export class LevelOfflineStore implements OfflineStore {
  private readonly life = new Lifecycle('LevelOfflineStore');
  private readonly locks = new KeyedMutex<number>();
  private readonly scopeLocks = new KeyedMutex<string>();
  private readonly rangeOf: (uin: number) => number;
  private readonly spans: RecordSpans;
  private readonly found = new FoundEntries();

  private constructor(
    private readonly db: Db,
    readonly rangeBits: number,
    maxCachedSpans: number,
  ) {
    this.spans = new RecordSpans(db, maxCachedSpans);
    // `uin >>> 32` is `uin >>> 0` in JavaScript, so 32 bits needs its own case.
    this.rangeOf = rangeBits === 32 ? () => 0 : (uin) => uin >>> rangeBits;
  }

  /**
   * Opens (creating if needed) the store in directory `path`. Fails with
   * CONFIG_INVALID for a bad rangeBits or one that differs from the store's,
   * with UNAVAILABLE if another process holds the directory.
   */
  static async open(path: string, options: LevelOfflineStoreOptions = {}): Promise<LevelOfflineStore> {
    const { rangeBits = DEFAULT_RANGE_BITS, maxCachedSpans = DEFAULT_MAX_CACHED_SPANS, ...unknown } = options;
    for (const field of Object.keys(unknown)) throw new ConfigError(field, 'is not a LevelOfflineStore option');
    if (!Number.isInteger(rangeBits) || rangeBits < 8 || rangeBits > 32)
      throw new ConfigError('rangeBits', `must be an integer in 8..32, got ${rangeBits}`);
    if (!Number.isSafeInteger(maxCachedSpans) || maxCachedSpans < 0)
      throw new ConfigError('maxCachedSpans', `must be a non-negative integer, got ${maxCachedSpans}`);
    const db: Db = await openLevelDb(path, 'LevelOfflineStore');
    try {
      const stored = await db.get(RANGE_BITS_KEY);
      if (stored === undefined) {
        await db.batch([
          { type: 'put', key: RANGE_BITS_KEY, value: Buffer.of(rangeBits) },
          { type: 'put', key: EXPIRY_INDEX_KEY, value: EMPTY },
        ]);
      } else if (stored[0] !== rangeBits)
        throw new ConfigError(
          'rangeBits',
          `the store at ${path} was created with rangeBits ${stored[0]}, not ${rangeBits}`,
        );
      if ((await db.get(EXPIRY_INDEX_KEY)) === undefined) await indexExpiries(db);
      return new LevelOfflineStore(db, rangeBits, maxCachedSpans);
    } catch (error) {
      await db.close();
      throw toHeraldError(error, 'LevelOfflineStore', 'open');
    }
  }

  append(
    taskId: number,
    expiresAt: number,
    sortedUins: Uint32Array,
    options: OfflineAppendOptions = {},
  ): Promise<void> {
    return this.life.run('append', async () => {
      const scope = options?.collapseScope;
      if (scope !== undefined && (typeof scope !== 'string' || scope === ''))
        throw new ValidationError('collapseScope must be a non-empty string', { field: 'collapseScope' });
      const group = options?.group;
      if (group !== undefined && (!Number.isInteger(group) || group < 0 || group > MAX_GROUP))
        throw new ValidationError(`group must be an integer in [0, ${MAX_GROUP}]`, { field: 'group' });
      checkTaskId(taskId);
      if (typeof expiresAt !== 'number' || !Number.isFinite(expiresAt))
        throw new ValidationError('expiresAt must be a finite number', { expiresAt });
      if (!(sortedUins instanceof Uint32Array)) throw new ValidationError('uins must be a Uint32Array');
      if (!isSortedUint32(sortedUins)) throw new ValidationError('uins must be sorted ascending', { taskId });
      if (sortedUins.length === 0) return;
      // Own copy: the caller may reuse its buffer as soon as this returns.
      const uins = uniqueSorted(sortedUins.slice());
      // A scope's tasks keep ungrouped records: collapsing reads and rewrites one shelf per (range, task).
      const shelfGroup = scope === undefined ? (group ?? UNGROUPED) : UNGROUPED;
      await this.lock(taskId, scope, () => this.appendLocked(taskId, expiresAt, uins, { scope, group: shelfGroup }));
    });
  }

  purgeExpired(now: number, maxRecords: number): Promise<OfflinePurge> {
    return this.life.run('purgeExpired', () => {
      if (typeof now !== 'number' || !Number.isFinite(now))
        throw new ValidationError('now must be a finite number', { field: 'now' });
      if (!Number.isSafeInteger(maxRecords) || maxRecords < 1)
        throw new ValidationError('maxRecords must be a positive integer', { field: 'maxRecords' });
      return purgeExpired(this.db, (taskId, scope, fn) => this.purgeLocked(taskId, scope, fn), now, maxRecords);
    });
  }

  /** The lock a task's appends and purge take: its collapse scope's when it has one (appends of a scope touch each other's records). */
  private lock<T>(taskId: number, scope: string | undefined, fn: () => Promise<T>): Promise<T> {
    return scope === undefined ? this.locks.run(taskId, fn) : this.scopeLocks.run(scope, fn);
  }

  /** A purge of the task, under its lock; the task's spans are dropped with its records (read again if it is appended to). */
  private purgeLocked(taskId: number, scope: string | undefined, fn: () => Promise<void>): Promise<void> {
    return this.lock(taskId, scope, async () => {
      try {
        await this.found.removing(fn);
      } finally {
        this.spans.forget(taskId);
      }
    });
  }

  /** LevelDB's estimate of the bytes on disk under every key of the store (what is only in its log yet is not counted). */
  approximateBytes(): Promise<number> {
    return this.life.run('approximateBytes', () => this.db.approximateSize(Buffer.of(0x00), Buffer.of(0xff)));
  }

  pending(uin: number): Promise<OfflineEntry[]> {
    return this.life.run('pending', async () => {
      checkUin(uin);
      const mark = this.found.mark();
      const range = this.rangeOf(uin);
      const [index, acks] = await Promise.all([
        this.db.iterator(indexOfRange(range)).all(),
        this.db.keys(acksOfUin(uin)).all(),
      ]);
      if (index.length === 0) return [];
      const candidates = unacknowledged(index, acks);
      const held = await holdingTasks(this.db, this.spans, range, uin, candidates);
      const entries = candidates.filter((_, i) => held[i]).map(({ taskId, expiresAt }) => ({ taskId, expiresAt }));
      this.found.remember(
        uin,
        mark,
        entries.map((e) => e.taskId),
      );
      return entries;
    });
  }

  acknowledge(uin: number, taskIds: readonly number[]): Promise<void> {
    return this.life.run('acknowledge', async () => {
      checkUin(uin);
      if (!Array.isArray(taskIds)) throw new ValidationError('taskIds must be an array');
      taskIds.forEach(checkTaskId);
      const tasks = [...new Set<number>(taskIds)];
      const range = this.rangeOf(uin);
      const found = this.found.take(uin);
      const held = await Promise.all(
        tasks.map(async (taskId) => {
          if (found?.has(taskId)) return true;
          const index = await this.db.get(indexKey(range, taskId));
          return index !== undefined && this.holds(taskId, range, uin, groupsOfIndex(index));
        }),
      );
      const ops: { type: 'put'; key: Buffer; value: Buffer }[] = [];
      tasks.forEach((taskId, i) => {
        if (!held[i]) return;
        ops.push(
          { type: 'put', key: ackKey(uin, taskId), value: EMPTY },
          { type: 'put', key: ackByTaskKey(taskId, uin), value: EMPTY },
        );
      });
      if (ops.length > 0) await this.db.batch(ops);
    });
  }

  async *scanTask(taskId: number): AsyncGenerator<Uint32Array> {
    this.life.assertOpen('scanTask');
    checkTaskId(taskId);
    try {
      yield* scanTaskRecords(this.db, taskId);
    } catch (error) {
      throw toHeraldError(error, 'LevelOfflineStore', 'scanTask');
    }
  }

  /** Waits for calls in flight, then closes the database. Any later call fails with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }

  /** Whether the task has a record holding `uin` (acknowledged or not): offline-cursors.ts holdsUin. */
  private holds(taskId: number, range: number, uin: number, groups: readonly number[]): Promise<boolean> {
    return holdsUin(this.db, { range, taskId }, groups, uin);
  }

  private async appendLocked(
    taskId: number,
    expiresAt: number,
    uins: Uint32Array,
    { scope, group }: { scope: string | undefined; group: number },
  ): Promise<void> {
    const slices = splitByRange(uins, this.rangeOf);
    // A chained batch: one atomic write, and much less per-operation overhead than an array of ops.
    const batch = this.db.batch();
    // One long-lived iterator seeking range to range: far cheaper than a new iterator per range.
    // No snapshot needed: the records read here (this task's, and its scope's other tasks') change only
    // under the lock we hold (the task's, or its scope's when it has one).
    const records = new RecordCursor(this.db);
    const rivalsOf = scope === undefined ? undefined : new ScopeRivals(this.db, scope, taskId);
    // The spans this append's records replace, applied once its batch is written (not before: a failed
    // write must leave them as the disk is).
    const edits: (() => void)[] = [];
    const rewritten = new Set<number>();
    try {
      const task = await this.spans.task(taskId);
      for (const slice of slices) {
        let merged = slice.uins;
        if (rivalsOf !== undefined && scope !== undefined) {
          const rivals = await rivalsOf.in(slice.range);
          merged = await withoutNewer(this.db, records, slice.range, rivals.newer, merged);
          if (merged.length === 0) continue;
          await supersedeOlder(this.db, records, batch, { range: slice.range, scope }, rivals.older, merged);
          for (const older of rivals.older) rewritten.add(older);
          batch.put(scopeKey(slice.range, scope, taskId), EMPTY);
        }
        const shelf = { range: slice.range, taskId, group };
        const spans = await task.shelf(slice.range, group, records);
        const first = merged[0]!;
        const last = merged[merged.length - 1]!;
        const at = spans.overlapping(first, last);
        if (at.to > at.from) {
          const overlapped = await records.overlapping(shelf, first, last, spans.count);
          if (overlapped.length !== at.to - at.from)
            throw new HeraldError(
              ErrorCodes.INTERNAL,
              `offline records of task ${taskId} in range ${slice.range}, group ${group}: ` +
                `${overlapped.length} overlapped on disk, ` +
                `${at.to - at.from} in memory`,
            );
          // Deletes first: the merged record may reuse an overlapped record's key, and the later op wins.
          for (const record of overlapped) {
            batch.del(record.key);
            merged = unionSorted(merged, record.uins);
          }
        }
        batch.put(shelfRecordKey(shelf, merged[0]!), encodeUins(merged));
        // The 'i' value changes only when a group joins the range (or the expiry changes): most appends
        // (every later batch of a group in a range) would write the same bytes again.
        if (!task.indexCurrent(slice.range, expiresAt)) {
          const groups = task.groups(slice.range);
          batch.put(indexKey(slice.range, taskId), encodeIndex(expiresAt, groups));
          edits.push(() => task.indexWritten(slice.range, expiresAt, groups.length));
        }
        batch.put(shelfCountKey(taskId, slice.range, group), encodeCount(spans.count - (at.to - at.from) + 1));
        const span = { first: merged[0]!, last: merged[merged.length - 1]! };
        edits.push(() => task.replace(spans, at, span.first, span.last));
      }
      if (!task.expiryCurrent(expiresAt)) {
        batch.put(expiryKey(expiresAt, taskId), encodeExpiry(expiresAt, scope));
        edits.push(() => task.expiryWrittenAs(expiresAt));
      }
      // Taking users out of older tasks' records is a removal: what pending found before it is read again.
      await (rewritten.size > 0 ? this.found.removing(() => batch.write()) : batch.write());
    } catch (error) {
      await batch.close(); // safe after a failed write too: it waits for the close the write began
      this.spans.forget(taskId);
      throw error;
    } finally {
      // A collapse rewrote (or may have rewritten) these tasks' records: their spans are read again when needed.
      for (const older of rewritten) this.spans.forget(older);
      await Promise.all([records.close(), rivalsOf?.close()]);
    }
    for (const edit of edits) edit();
    this.spans.settle(taskId);
  }
}
