import type { FileHandle } from 'node:fs/promises';
import { ListFormatError } from '@herald/core';

/**
 * Levels of a binary search whose probes a SortedCells remembers: at most
 * 2^TOP_LEVELS - 1 values (32 KiB of numbers), the probes every search of a
 * file starts with, so a file searched many times (a completed task's list,
 * docs/recipient-truth.md "What a lookup keeps") reads them once.
 */
const TOP_LEVELS = 12;
/** Cells read in one positioned read once a search has narrowed to them (4 KiB of 8-byte uins), aligned. */
const BLOCK_CELLS = 512;
/** Blocks a SortedCells keeps, the first read dropped first: 512 KiB of a list, 256 KiB of a removed set. */
const BLOCKS_KEPT = 128;

/**
 * An ascending run of `count` little-endian cells of `bytes` bytes (8: a
 * recipient list's uins; 4: a removed set's) at `offset` in an open file,
 * searched by positioned reads: the top levels of the search from memory once
 * read, the last BLOCK_CELLS candidates from one aligned block (at most two),
 * the last BLOCKS_KEPT blocks read kept. Only for a file that does not change
 * while it is open; read-only; the caller owns the handle.
 */
export class SortedCells {
  private readonly probes = new Map<number, number>();
  private readonly blocks = new Map<number, Buffer>();

  constructor(
    private readonly file: FileHandle,
    private readonly path: string,
    private readonly offset: number,
    readonly count: number,
    private readonly bytes: 4 | 8,
    private readonly what: string,
  ) {}

  /** The index of the first `uin` in [from, to), or undefined when it is not there. */
  async indexOf(uin: number, from = 0, to = this.count): Promise<number | undefined> {
    let lo = from;
    let hi = to;
    for (let depth = 0; hi - lo > BLOCK_CELLS; depth++) {
      const mid = (lo + hi) >>> 1;
      if ((await this.probe(mid, depth)) < uin) lo = mid + 1;
      else hi = mid;
    }
    // The rest of the search within at most two blocks, each read once (and kept).
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((await this.at(mid)) < uin) lo = mid + 1;
      else hi = mid;
    }
    return lo < to && (await this.at(lo)) === uin ? lo : undefined;
  }

  /** The value of cell `i` (from its block, read once while kept). */
  async at(i: number): Promise<number> {
    const index = Math.floor(i / BLOCK_CELLS);
    const block = this.blocks.get(index) ?? (await this.block(index));
    const offset = (i - index * BLOCK_CELLS) * this.bytes;
    if (offset + this.bytes > block.length)
      throw new ListFormatError('LIST_TRUNCATED', `${this.path} ends inside its ${this.what} (cell ${i})`);
    return this.bytes === 4
      ? block.readUInt32LE(offset)
      : block.readUInt32LE(offset) + block.readUInt32LE(offset + 4) * 0x1_0000_0000;
  }

  /** A probe of the search's top levels is read once and remembered; the deeper ones are read each time. */
  private async probe(i: number, depth: number): Promise<number> {
    const known = this.probes.get(i);
    if (known !== undefined) return known;
    const value = await this.at(i);
    if (depth < TOP_LEVELS) this.probes.set(i, value);
    return value;
  }

  /** Block `index` (its cells up to the run's end), read and kept, the oldest dropped past BLOCKS_KEPT. */
  private async block(index: number): Promise<Buffer> {
    const first = index * BLOCK_CELLS;
    const length = Math.max(0, Math.min(BLOCK_CELLS, this.count - first)) * this.bytes;
    const buffer = Buffer.allocUnsafe(length);
    const { bytesRead } = await this.file.read(buffer, 0, length, this.offset + first * this.bytes);
    const block = buffer.subarray(0, bytesRead);
    this.blocks.delete(index);
    if (this.blocks.size >= BLOCKS_KEPT) this.blocks.delete(this.blocks.keys().next().value!);
    this.blocks.set(index, block);
    return block;
  }
}
