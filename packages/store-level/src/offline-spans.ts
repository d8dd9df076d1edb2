/*
 * What LevelOfflineStore knows in memory of each task's records, range by
 * range: their spans [first, last] (so their count, the 'k' value too).
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
import { RANGE_IN_TASK_RANGE_KEY, rangesOfTask, recordPrefix } from './offline-keys';

/** One task's records in one range: ascending, disjoint spans; record i's key holds firsts[i]. */
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

  /** Replaces spans [from, to) (the ones a merged record absorbed) by the merged record's span. */
  replace(from: number, to: number, first: number, last: number): void {
    this.firsts.splice(from, to - from, first);
    this.lasts.splice(from, to - from, last);
  }
}

/** One task's spans: the ranges read so far, and the record counts ('k') of the ranges not read yet. */
export class TaskSpans {
  private readonly ranges = new Map<number, RangeSpans>();
  /** Spans and unread counts held now, and as the cache last counted them (its bound). */
  held: number;
  accounted = 0;

  constructor(
    readonly taskId: number,
    private readonly unread: Map<number, number>,
  ) {
    this.held = unread.size;
  }

  /** The task's spans in `range`, read from its records on first use if it has any there. */
  async range(range: number, records: RecordCursor): Promise<RangeSpans> {
    let spans = this.ranges.get(range);
    if (spans !== undefined) return spans;
    spans = new RangeSpans();
    const count = this.unread.get(range) ?? 0;
    if (count > 0) {
      for (const [key, value] of await records.all(range, this.taskId, count)) {
        if (value.byteLength < 4 || value.byteLength % 4 !== 0)
          throw new HeraldError(ErrorCodes.INTERNAL, `corrupt offline record: ${value.byteLength} bytes`);
        spans.firsts.push(key.readUInt32BE(FIRST_IN_RECORD_KEY));
        spans.lasts.push(value.readUInt32LE(value.byteLength - 4));
      }
    }
    if (this.unread.delete(range)) this.held--;
    this.held += spans.count;
    this.ranges.set(range, spans);
    return spans;
  }

  /** Records in `spans` (one of this task's ranges) that a merged record [first, last] replaces: spans [from, to). */
  replace(spans: RangeSpans, at: { from: number; to: number }, first: number, last: number): void {
    spans.replace(at.from, at.to, first, last);
    this.held += 1 - (at.to - at.from);
  }
}

/** Where the first uin sits in a record key: after the tag, the range (u32) and the task id (u64). */
const FIRST_IN_RECORD_KEY = recordPrefix(0, 0).length;

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
      new Map(counts.map(([k, v]) => [k.readUInt32BE(RANGE_IN_TASK_RANGE_KEY), v.readUInt32BE(0)])),
    );
    this.tasks.set(taskId, task);
    return task;
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
