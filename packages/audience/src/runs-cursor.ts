import { open, type FileHandle } from 'node:fs/promises';
import { ListFormatError } from '@herald/core';
import { decodeListHeader, LIST_HEADER_BYTES, UIN_BYTES } from '@herald/core/recipient-list';

/** Uins read per run at a time: a local-time task's few dozen runs hold a few dozen blocks in memory. */
const BLOCK_UINS = 4096;

/**
 * Positions in a list made of sorted runs (a local-time task's delivery-order
 * list, group after group: docs/local-time.md), asked for uins in ascending
 * order, as the delivery report walks its audience. Each run is read forward
 * once, block by block, so a whole report costs one pass over the file
 * whatever the number of runs; the smallest unread uin of every run is the
 * next in uin order, so each asked uin is found at one run's head.
 */
export class RunsCursor {
  private readonly heads: number[];
  private readonly blocks: { from: number; uins: Float64Array }[];

  private constructor(
    private readonly file: FileHandle,
    private readonly path: string,
    private readonly runs: readonly { start: number; end: number }[],
  ) {
    this.heads = runs.map((r) => r.start);
    this.blocks = runs.map(() => ({ from: 0, uins: new Float64Array(0) }));
  }

  /** Opens the list; with `after`, each run starts past the uins at or below it. */
  static async open(
    path: string,
    runs: readonly { start: number; end: number }[],
    after?: number,
  ): Promise<RunsCursor> {
    const file = await open(path, 'r');
    try {
      const header = Buffer.alloc(LIST_HEADER_BYTES);
      await file.read(header, 0, LIST_HEADER_BYTES, 0);
      const { count } = decodeListHeader(header);
      if (runs.some((r) => r.end > count || r.start > r.end))
        throw new ListFormatError('LIST_TRUNCATED', `${path} is shorter than its runs`);
      const cursor = new RunsCursor(file, path, runs);
      if (after !== undefined) for (let r = 0; r < runs.length; r++) await cursor.skipTo(r, after);
      return cursor;
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  /** The uin's position and run, or undefined when no run's head holds it (it is in no run). */
  async positionOf(uin: number): Promise<{ position: number; run: number } | undefined> {
    for (let run = 0; run < this.runs.length; run++) {
      const end = this.runs[run]!.end;
      while (this.heads[run]! < end && (await this.uinAt(run, this.heads[run]!)) < uin) this.heads[run]!++;
      if (this.heads[run]! < end && (await this.uinAt(run, this.heads[run]!)) === uin)
        return { position: this.heads[run]!++, run };
    }
    return undefined;
  }

  /**
   * positionOf's answer when the blocks in hand hold every uin it compares,
   * else 'read' (positionOf then reads on from where this stopped: the heads
   * it moved passed only uins below this one). The report asks it first, so
   * only the row at a block's end awaits a read.
   */
  positionInHand(uin: number): { position: number; run: number } | undefined | 'read' {
    for (let run = 0; run < this.runs.length; run++) {
      const end = this.runs[run]!.end;
      let head = this.heads[run]!;
      let found = -1;
      for (; head < end; head++) {
        const block = this.blocks[run]!;
        const at = head - block.from;
        if (at < 0 || at >= block.uins.length) {
          this.heads[run] = head;
          return 'read';
        }
        const held = block.uins[at]!;
        if (held >= uin) {
          if (held === uin) found = head;
          break;
        }
      }
      this.heads[run] = head;
      if (found >= 0) {
        this.heads[run] = found + 1;
        return { position: found, run };
      }
    }
    return undefined;
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  /** Moves a run's head past every uin at or below `after` (a binary search by positioned reads). */
  private async skipTo(run: number, after: number): Promise<void> {
    let lo = this.runs[run]!.start;
    let hi = this.runs[run]!.end;
    const cell = Buffer.alloc(UIN_BYTES);
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      await this.file.read(cell, 0, UIN_BYTES, LIST_HEADER_BYTES + mid * UIN_BYTES);
      if (cell.readUInt32LE(0) + cell.readUInt32LE(4) * 0x1_0000_0000 <= after) lo = mid + 1;
      else hi = mid;
    }
    this.heads[run] = lo;
  }

  private async uinAt(run: number, position: number): Promise<number> {
    const block = this.blocks[run]!;
    if (position < block.from || position >= block.from + block.uins.length) {
      const count = Math.min(BLOCK_UINS, this.runs[run]!.end - position);
      const bytes = Buffer.alloc(count * UIN_BYTES);
      const { bytesRead } = await this.file.read(bytes, 0, bytes.length, LIST_HEADER_BYTES + position * UIN_BYTES);
      if (bytesRead < bytes.length)
        throw new ListFormatError('LIST_TRUNCATED', `${this.path} ends before recipient ${position + count - 1}`);
      const uins = new Float64Array(count);
      for (let i = 0; i < count; i++)
        uins[i] = bytes.readUInt32LE(i * UIN_BYTES) + bytes.readUInt32LE(i * UIN_BYTES + 4) * 0x1_0000_0000;
      this.blocks[run] = { from: position, uins };
      return uins[0]!;
    }
    return block.uins[position - block.from]!;
  }
}
