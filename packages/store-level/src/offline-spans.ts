/*
 * What LevelOfflineStore knows in memory of each task's records, shelf by
 * shelf (range and group): their spans [first, last] (so their count, the
 * 'k' value too), and which groups the task has in each range (the 'i' value).
 *
 * Why it can be trusted: the store is the only writer of its LevelDB (the
 * LOCK file keeps other processes out), and a task's records change only
 * under the lock its appends and purge take (the task's, or its collapse
 * scope's). Every such change either updates the task's spans once its batch
 * is written (an append) or drops them (a purge, a collapse rewriting an
 * older task of the scope, a failed write); dropped spans are read from disk
 * again on the task's next append, as after a restart. So an append learns
 * which records its batch overlaps without a read, and on the fan-out path
 * (batches that land past the task's records in their range) it writes only.
 */
import { HeraldError, ErrorCodes } from '@herald/core';
import type { RecordCursor, Db } from './offline-cursors';
import { groupOfCountKey, RANGE_IN_TASK_RANGE_KEY, rangesOfTask, shelfPrefix } from './offline-keys';

/** One task's records in one shelf (range and group): ascending, disjoint spans; record i's key holds firsts[i]. */
export class RangeSpans {
  readonly firsts: number[] = [];
  readonly lasts: number[] = [];

  get count(): number {
    return this.firsts.length;
  }

  /** The spans that meet [first, last], as indexes [from, to): the first span ending at or after `first`, on. */
  overlapping(first: number, last: number): { from: number; to: number } {
    let lo = 0;
    let hi = this.lasts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lasts[mid]! < first) lo = mid + 1;
      else hi = mid;
    }
    let to = lo;
    while (to < this.firsts.length && this.firsts[to]! <= last) to++;
    return { from: lo, to };
  }

  /** The first uin (the key) of the record whose span holds `uin`, if one does. */
  firstHolding(uin: number): number | undefined {
    const at = this.overlapping(uin, uin);
    return at.to > at.from ? this.firsts[at.from] : undefined;
  }

  /** Replaces spans [from, to) (the ones a merged record absorbed) by the merged record's span. */
  replace(from: number, to: number, first: number, last: number): void {
    this.firsts.splice(from, to - from, first);
    this.lasts.splice(from, to - from, last);
  }
}

/** A shelf as held: its spans once read, or its record count ('k') until then. */
type ShelfState = RangeSpans | number;

/** One task's spans: per range, each group's spans read so far, and the record counts ('k') of those not read yet. */
export class TaskSpans {
  private readonly ranges = new Map<number, Map<number, ShelfState>>();
  /** Spans and unread counts held now, and as the cache last counted them (its bound). */
  held = 0;
  accounted = 0;
  /**
   * Per range, the 'i' value this object's appends last wrote there (its
   * expiresAt and how many groups it listed), and the expiry entry ('e')
   * they last wrote: an append whose values would be the same skips the
   * put. Groups only join a range while the object lives (a purge or a
   * collapse drops it), so the same count is the same list. A fresh object
   * (after a restart, an eviction, a dropped task) knows nothing written and
   * writes each once again.
   */
  private readonly indexed = new Map<number, { expiresAt: number; groups: number }>();
  private expiryWritten: number | undefined;

  constructor(
    readonly taskId: number,
    counts: Iterable<{ range: number; group: number; count: number }>,
  ) {
    for (const { range, group, count } of counts) {
      this.groupsOf(range).set(group, count);
      this.held++;
    }
  }

  private groupsOf(range: number): Map<number, ShelfState> {
    let groups = this.ranges.get(range);
    if (groups === undefined) this.ranges.set(range, (groups = new Map<number, ShelfState>()));
    return groups;
  }

  /** The task's spans in `range` and `group`, read from its records on first use if it has any there. */
  async shelf(range: number, group: number, records: RecordCursor): Promise<RangeSpans> {
    const groups = this.groupsOf(range);
    const state = groups.get(group);
    if (state instanceof RangeSpans) return state;
    const spans = new RangeSpans();
    const shelf = { range, taskId: this.taskId, group };
    const first = shelfPrefix(shelf).length;
    if (state !== undefined && state > 0) {
      for (const [key, value] of await records.all(shelf, state)) {
        if (value.byteLength < 4 || value.byteLength % 4 !== 0)
          throw new HeraldError(ErrorCodes.INTERNAL, `corrupt offline record: ${value.byteLength} bytes`);
        spans.firsts.push(key.readUInt32BE(first));
        spans.lasts.push(value.readUInt32LE(value.byteLength - 4));
      }
    }
    if (state !== undefined) this.held--;
    this.held += spans.count;
    groups.set(group, spans);
    return spans;
  }

  /** The key's first uin of the record that holds `uin` in the shelf, if its spans are read and one does. */
  recordHolding(range: number, group: number, uin: number): number | undefined {
    const state = this.ranges.get(range)?.get(group);
    return state instanceof RangeSpans ? state.firstHolding(uin) : undefined;
  }

  /** The groups the task has records of in `range` (UNGROUPED among them if it has ungrouped ones), ascending. */
  groups(range: number): number[] {
    return [...(this.ranges.get(range)?.keys() ?? [])].sort((a, b) => a - b);
  }

  /** Whether the range's 'i' value, as this object last wrote it, already says `expiresAt` and every group it holds. */
  indexCurrent(range: number, expiresAt: number): boolean {
    const written = this.indexed.get(range);
    return written !== undefined && written.expiresAt === expiresAt && written.groups === this.groupsOf(range).size;
  }

  /** After a write that put the range's 'i' value: what it said. */
  indexWritten(range: number, expiresAt: number, groups: number): void {
    this.indexed.set(range, { expiresAt, groups });
  }

  /** Whether this object's appends already wrote the task's expiry entry for `expiresAt`. */
  expiryCurrent(expiresAt: number): boolean {
    return this.expiryWritten === expiresAt;
  }

  /** After a write that put the expiry entry. */
  expiryWrittenAs(expiresAt: number): void {
    this.expiryWritten = expiresAt;
  }

  /** Records in `spans` (one of this task's shelves) that a merged record [first, last] replaces: spans [from, to). */
  replace(spans: RangeSpans, at: { from: number; to: number }, first: number, last: number): void {
    spans.replace(at.from, at.to, first, last);
    this.held += 1 - (at.to - at.from);
  }
}

/** The default bound: about 16 MiB of spans (two doubles each), some 350 x 2^20-recipient tasks at 2,867 uins a record. */
export const DEFAULT_MAX_CACHED_SPANS = 1 << 20;

/**
 * The spans of the tasks appended most recently, least recently appended
 * evicted first once more than `maxSpans` are held (0: nothing is kept,
 * every append reads from disk).
 */
export class RecordSpans {
  private readonly tasks = new Map<number, TaskSpans>();
  private held = 0;

  constructor(
    private readonly db: Db,
    private readonly maxSpans: number,
  ) {}

  /** The task's spans, its 'k' counts read (one scan of its 'k' keys) when it is not held. */
  async task(taskId: number): Promise<TaskSpans> {
    const held = this.tasks.get(taskId);
    if (held !== undefined) return held;
    const counts = await this.db.iterator(rangesOfTask(taskId)).all();
    const task = new TaskSpans(
      taskId,
      counts.map(([k, v]) => ({
        range: k.readUInt32BE(RANGE_IN_TASK_RANGE_KEY),
        group: groupOfCountKey(k),
        count: v.readUInt32BE(0),
      })),
    );
    this.tasks.set(taskId, task);
    return task;
  }

  /** The task's spans if held, without reading or marking it used: a login's hint, checked against the disk. */
  known(taskId: number): TaskSpans | undefined {
    return this.tasks.get(taskId);
  }

  /** Drops what is held of the task: its records changed in a way not tracked here (purge, collapse, failed write). */
  forget(taskId: number): void {
    const task = this.tasks.get(taskId);
    if (task === undefined) return;
    this.held -= task.accounted;
    this.tasks.delete(taskId);
  }

  /**
   * After the task's append: counts what it holds now, marks it most recently
   * used, and evicts the least recently used tasks beyond the bound (a task
   * evicted while its append runs only loses what that append learns).
   */
  settle(taskId: number): void {
    const task = this.tasks.get(taskId);
    if (task !== undefined) {
      this.held += task.held - task.accounted;
      task.accounted = task.held;
      this.tasks.delete(taskId);
      this.tasks.set(taskId, task);
    }
    for (const [id, t] of this.tasks) {
      if (this.held <= this.maxSpans) break;
      this.held -= t.accounted;
      this.tasks.delete(id);
    }
  }

  /** Tasks and spans held (for tests: the bound is kept). */
  get size(): { tasks: number; spans: number } {
    return { tasks: this.tasks.size, spans: this.held };
  }
}
