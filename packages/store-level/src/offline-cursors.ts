/*
 * The cursors LevelOfflineStore reads its records and acknowledgements
 * through: seeks over one iterator instead of an iterator per range, and a
 * forward merge over sorted uins.
 */
import type { ClassicLevel, Iterator as LevelIterator, Snapshot } from 'classic-level';
import { recordKey, recordPrefix, RECORDS, startsWith } from './offline-keys';
import { decodeUins } from './uin-records';

export type Db = ClassicLevel<Buffer, Buffer>;

/** Entries read per `nextv` after a seek; a range rarely holds more records of one task. */
const SEEK_CHUNK = 8;

export interface StoredRecord {
  key: Buffer;
  uins: Uint32Array;
}

/**
 * Seeks over the 'r' records with one forward and one reverse iterator, each
 * created on first use: one seek and usually one `nextv` per range. The
 * record count from the 'k' index bounds each read, so no read spills into
 * the next task's (possibly large) records.
 */
export class RecordCursor {
  private forward: LevelIterator<Db, Buffer, Buffer> | undefined;
  private reverse: LevelIterator<Db, Buffer, Buffer> | undefined;

  constructor(
    private readonly db: Db,
    private readonly snapshot?: Snapshot,
  ) {}

  /** The task's `count` records in `range`, ascending. */
  async all(range: number, taskId: number, count: number): Promise<[Buffer, Buffer][]> {
    this.forward ??= this.db.iterator({ ...RECORDS, snapshot: this.snapshot });
    const prefix = recordPrefix(range, taskId);
    this.forward.seek(prefix);
    const entries: [Buffer, Buffer][] = [];
    // nextv(n) may answer fewer than n entries before the end (it stops at the iterator's
    // highWaterMarkBytes, 16 KiB: one record of 4,096 uins), so read until `count` or the prefix ends.
    while (entries.length < count) {
      const chunk = await this.forward.nextv(count - entries.length);
      if (chunk.length === 0) break;
      for (const entry of chunk) {
        if (!startsWith(entry[0], prefix)) return entries;
        entries.push(entry);
      }
    }
    return entries;
  }

  /**
   * The task's records in `range` whose span [first, last] meets the batch's
   * span: walking back from the last record starting at or before `last`,
   * until one ends before `first` (spans are disjoint, so no earlier one can
   * reach it) or the task's `count` records are used up.
   */
  async overlapping(
    range: number,
    taskId: number,
    first: number,
    last: number,
    count: number,
  ): Promise<StoredRecord[]> {
    this.reverse ??= this.db.iterator({ ...RECORDS, reverse: true });
    const prefix = recordPrefix(range, taskId);
    this.reverse.seek(recordKey(range, taskId, last));
    const found: StoredRecord[] = [];
    let seen = 0;
    while (seen < count) {
      const chunk = await this.reverse.nextv(Math.min(count - seen, SEEK_CHUNK));
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
    await Promise.all([this.forward?.close(), this.reverse?.close()]);
  }
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
