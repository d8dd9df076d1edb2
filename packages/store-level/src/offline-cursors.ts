/*
 * The cursors LevelOfflineStore reads its records and acknowledgements
 * through: seeks over one iterator instead of an iterator per range, and a
 * forward merge over sorted uins.
 */
import type { ClassicLevel, Iterator as LevelIterator, Snapshot } from 'classic-level';
import { GROUP_RECORDS, RECORDS, shelfPrefix, shelfRecordKey, startsWith, UNGROUPED, type Shelf } from './offline-keys';
import { indexOfSorted } from '@herald/core/uins';
import { decodeUins } from './uin-records';

export type Db = ClassicLevel<Buffer, Buffer>;

/** Entries read per `nextv` after a seek; a range rarely holds more records of one task. */
const SEEK_CHUNK = 8;

export interface StoredRecord {
  key: Buffer;
  uins: Uint32Array;
}

/**
 * Seeks over the records ('r' ungrouped, 'q' of groups) with one forward and
 * one reverse iterator per key kind, each created on first use: one seek and
 * usually one `nextv` per shelf (a task's records in one range and group). The
 * record count from the 'k' index bounds each read, so no read spills into
 * the next task's (possibly large) records.
 */
export class RecordCursor {
  private readonly forward: (LevelIterator<Db, Buffer, Buffer> | undefined)[] = [undefined, undefined];
  private readonly reverse: (LevelIterator<Db, Buffer, Buffer> | undefined)[] = [undefined, undefined];

  constructor(
    private readonly db: Db,
    private readonly snapshot?: Snapshot,
  ) {}

  /** One iterator over the shelf's key kind, created on first use (an iterator that seeks stays inside its bounds). */
  private iterator(shelf: Shelf, reverse: boolean): LevelIterator<Db, Buffer, Buffer> {
    const kind = shelf.group === UNGROUPED ? 0 : 1;
    const held = reverse ? this.reverse : this.forward;
    return (held[kind] ??= this.db.iterator({
      ...(kind === 0 ? RECORDS : GROUP_RECORDS),
      reverse,
      snapshot: this.snapshot,
    }));
  }

  /** The shelf's `count` records, ascending. */
  async all(shelf: Shelf, count: number): Promise<[Buffer, Buffer][]> {
    const forward = this.iterator(shelf, false);
    const prefix = shelfPrefix(shelf);
    forward.seek(prefix);
    const entries: [Buffer, Buffer][] = [];
    // nextv(n) may answer fewer than n entries before the end (it stops at the iterator's
    // highWaterMarkBytes, 16 KiB: one record of 4,096 uins), so read until `count` or the prefix ends.
    while (entries.length < count) {
      const chunk = await forward.nextv(count - entries.length);
      if (chunk.length === 0) break;
      for (const entry of chunk) {
        if (!startsWith(entry[0], prefix)) return entries;
        entries.push(entry);
      }
    }
    return entries;
  }

  /**
   * The shelf's records whose span [first, last] meets the batch's span:
   * walking back from the last record starting at or before `last`, until one
   * ends before `first` (spans are disjoint within a shelf, so no earlier one
   * can reach it) or the shelf's `count` records are used up.
   */
  async overlapping(shelf: Shelf, first: number, last: number, count: number): Promise<StoredRecord[]> {
    const reverse = this.iterator(shelf, true);
    const prefix = shelfPrefix(shelf);
    reverse.seek(shelfRecordKey(shelf, last));
    const found: StoredRecord[] = [];
    let seen = 0;
    while (seen < count) {
      const chunk = await reverse.nextv(Math.min(count - seen, SEEK_CHUNK));
      if (chunk.length === 0) return found;
      for (const [k, v] of chunk) {
        if (!startsWith(k, prefix)) return found;
        const uins = decodeUins(v);
        if (uins[uins.length - 1]! < first) return found;
        found.push({ key: k, uins });
      }
      seen += chunk.length;
    }
    return found;
  }

  async close(): Promise<void> {
    await Promise.all([...this.forward, ...this.reverse].flatMap((iterator) => iterator?.close() ?? []));
  }
}

/**
 * Whether the task has a record in `range` holding `uin`: one reverse seek
 * per group listed (by the invariant, the last record of a shelf starting at
 * or before `uin` is the only one of it that can hold it).
 */
export async function holdsUin(
  db: Db,
  at: { range: number; taskId: number },
  groups: readonly number[],
  uin: number,
): Promise<boolean> {
  const found = await Promise.all(
    groups.map(async (group) => {
      const shelf = { ...at, group };
      const [record] = await db
        .values({ gte: shelfPrefix(shelf), lte: shelfRecordKey(shelf, uin), reverse: true, limit: 1 })
        .all();
      return record !== undefined && indexOfSorted(decodeUins(record), uin) >= 0;
    }),
  );
  return found.includes(true);
}

interface KeyIterator {
  nextv(size: number): Promise<Buffer[]>;
  close(): Promise<void>;
}

/** Reads uins from keys in ascending order, a chunk at a time, for a merge against ascending records. */
export class SortedUinCursor {
  private chunk: Buffer[] = [];
  private at = 0;
  private done = false;

  constructor(
    private readonly keys: KeyIterator,
    private readonly offset: number,
  ) {}

  /** The uins in [first, last], ascending; skips (for good) any below `first`. */
  async within(first: number, last: number): Promise<Uint32Array> {
    const out: number[] = [];
    for (;;) {
      if (this.at === this.chunk.length) {
        if (this.done) break;
        this.chunk = await this.keys.nextv(1024);
        this.at = 0;
        if (this.chunk.length === 0) this.done = true;
        continue;
      }
      const uin = this.chunk[this.at]!.readUInt32BE(this.offset);
      if (uin > last) break;
      if (uin >= first) out.push(uin);
      this.at++;
    }
    return Uint32Array.from(out);
  }

  close(): Promise<void> {
    return this.keys.close();
  }
}
