import { ClassicLevel } from 'classic-level';
import { AbstractFrequencyCounter } from '@herald/core/adapter';
import { ConfigError } from '@herald/core';
import { uniqueSorted } from '@herald/core/uins';
import type { FrequencyUse } from '@herald/core/ports';
import { EMPTY, key, prefixRange, tag } from './keys';
import { toHeraldError, openLevelDb } from './lifecycle';

/**
 * The embedded FrequencyCounter, on LevelDB (classic-level).
 *
 * Key layout (tag byte, then big-endian numbers: day and uin u32, task id u64):
 *
 *   'u' day uin taskId -> '' : the user was counted for the task on that local day
 *
 * A count is the number of keys under 'u' day uin, so consuming is a blind
 * put of one key per (uin, day, task): idempotent by construction (a replayed
 * report writes the same keys again), with no read-modify-write to race
 * between concurrent calls. A day's users are one contiguous, uin-ordered key
 * range, so a sorted batch read is a walk forward through it, and a shard of
 * the uin space is a contiguous sub-range: a sharded deployment runs one
 * counter per uin range with this same layout (routing is not here yet).
 *
 * used(uins, day): one iterator over the day's range. For each distinct uin,
 * keys already read ahead are reused; otherwise the iterator seeks to the uin
 * and reads a chunk. The chunk doubles (64 up to 4096 keys) while read-ahead
 * keeps being used up, and drops back to 64 when it overshoots the next uin:
 * dense batches cost a few large reads, sparse ones one seek per uin.
 *
 * Retention: only the newest `retainDays` days seen by `consume` are kept
 * (default 3: users in their own zones are on up to three local days at
 * one instant, -12:00 to +14:00, docs/frequency.md "Time zones"). When a consume brings a newer day, older days are deleted by one
 * range clear; a consume for a day already older than that is dropped, since
 * nobody asks about a past day's budget. So a bogus far-future day would
 * prune the present: callers pass `dayOf(policy, sendTime)`, not raw input.
 */

export interface LevelFrequencyCounterOptions {
  /**
   * Days kept, counting the newest day consumed, 1..366.
   * @defaultValue 3 (users in their own zones span up to three local days at one instant)
   */
  retainDays?: number;
}

export const DEFAULT_RETAIN_DAYS = 3;

type Db = ClassicLevel<Buffer, Buffer>;

const USES = key(tag('u'));
const dayPrefix = (day: number) => key(tag('u'), { u32: day });
const useKey = (day: number, uin: number, taskId: number) => key(tag('u'), { u32: day }, { u32: uin }, { u64: taskId });
const seekKey = (day: number, uin: number) => key(tag('u'), { u32: day }, { u32: uin });

const DAY_IN_KEY = 1;
const UIN_IN_KEY = 5;
/** Keys read per call after a seek: a user rarely has more than a day's limit of tasks. */
const READ_CHUNK = 64;
/** The read-ahead doubles while a batch is dense, up to this. */
const MAX_READ_CHUNK = 4096;

/** The upper bound of a prefix range (none when the prefix is all 0xff bytes: everything after it). */
function upTo(range: { lt?: Buffer }): { lt?: Buffer } {
  return range.lt === undefined ? {} : { lt: range.lt };
}

export class LevelFrequencyCounter extends AbstractFrequencyCounter {
  private constructor(
    private readonly db: Db,
    readonly retainDays: number,
    /** The newest day consumed so far (-1: none), kept across reopen by reading the last key. */
    private newestDay: number,
  ) {
    super({
      name: 'LevelFrequencyCounter',
      translate: (error, op) => toHeraldError(error, 'LevelFrequencyCounter', op),
    });
  }

  /**
   * Opens (creating if needed) the counter in directory `path`. Fails with
   * CONFIG_INVALID for a bad retainDays, with UNAVAILABLE if another process
   * holds the directory.
   */
  static async open(path: string, options: LevelFrequencyCounterOptions = {}): Promise<LevelFrequencyCounter> {
    const { retainDays = DEFAULT_RETAIN_DAYS } = options;
    if (!Number.isInteger(retainDays) || retainDays < 1 || retainDays > 366)
      throw new ConfigError('retainDays', `must be an integer in 1..366, got ${retainDays}`);
    const db: Db = await openLevelDb(path, 'LevelFrequencyCounter');
    try {
      const [last] = await db.keys({ ...prefixRange(USES), reverse: true, limit: 1 }).all();
      return new LevelFrequencyCounter(db, retainDays, last === undefined ? -1 : last.readUInt32BE(DAY_IN_KEY));
    } catch (error) {
      await db.close();
      throw toHeraldError(error, 'LevelFrequencyCounter', 'open');
    }
  }

  /** Checked, sorted, non-empty uins (AbstractFrequencyCounter). */
  protected async _used(sortedUins: Uint32Array, day: number): Promise<Uint32Array> {
    const counts = new Uint32Array(sortedUins.length);
    if (day < this.oldestKeptDay()) return counts;
    // Bounded by the batch's first and last uin, so read-ahead never runs past the batch.
    const keys = this.db.keys({
      gte: seekKey(day, sortedUins[0]!),
      ...upTo(prefixRange(seekKey(day, sortedUins[sortedUins.length - 1]!))),
    });
    try {
      let buffered: Buffer[] = [];
      let at = 0;
      let chunk = READ_CHUNK;
      for (let i = 0; i < sortedUins.length; i++) {
        const uin = sortedUins[i]!;
        if (i > 0 && sortedUins[i - 1] === uin) {
          counts[i] = counts[i - 1]!;
          continue;
        }
        // Read-ahead that ends below this uin cannot hold it: seek instead of walking, and read less ahead.
        if (at < buffered.length && buffered[buffered.length - 1]!.readUInt32BE(UIN_IN_KEY) < uin) {
          at = buffered.length;
          chunk = READ_CHUNK;
        }
        let count = 0;
        for (;;) {
          while (at < buffered.length && buffered[at]!.readUInt32BE(UIN_IN_KEY) < uin) at++;
          while (at < buffered.length && buffered[at]!.readUInt32BE(UIN_IN_KEY) === uin) {
            count++;
            at++;
          }
          if (at < buffered.length) break; // the next key belongs to a later uin
          // Buffer used up: seek to the uin unless we are part-way through its keys.
          const seeking = count === 0;
          if (seeking) keys.seek(seekKey(day, uin));
          buffered = await keys.nextv(chunk);
          // A read-ahead used up means a dense batch: read further ahead next time.
          chunk = Math.min(chunk * 2, MAX_READ_CHUNK);
          at = 0;
          if (buffered.length === 0) {
            // Nothing at or after a sought uin: every later uin counts 0 (as allocated).
            if (seeking) return counts;
            break;
          }
        }
        counts[i] = count;
      }
    } finally {
      await keys.close();
    }
    return counts;
  }

  protected async _consume(uses: readonly FrequencyUse[]): Promise<void> {
    const newest = uses.reduce((max, use) => Math.max(max, use.day), this.newestDay);
    const floor = newest - this.retainDays + 1;
    const batch = this.db.batch();
    try {
      for (const use of uses) {
        if (use.day < floor) continue;
        // Own deduped copy: the caller's array is left as it was.
        const uins = uniqueSorted(use.uins.slice());
        for (let i = 0; i < uins.length; i++) batch.put(useKey(use.day, uins[i]!, use.taskId), EMPTY);
      }
    } catch (error) {
      await batch.close();
      throw error;
    }
    await batch.write();
    if (newest > this.newestDay) {
      this.newestDay = newest;
      await this.db.clear({ gte: USES, lt: dayPrefix(floor < 0 ? 0 : floor) });
    }
  }

  protected _close(): Promise<void> {
    return this.db.close();
  }

  private oldestKeptDay(): number {
    return this.newestDay - this.retainDays + 1;
  }
}
