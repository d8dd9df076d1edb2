import type { FileHandle } from 'node:fs/promises';
import { ListFormatError } from '@herald/core';
import { decodeListHeader, LIST_HEADER_BYTES, UIN_BYTES, uinOutOfRange } from '@herald/core/recipient-list';
import { checkFileLength, checkUinLimit } from './decoding';
import { openForRead, positiveInteger, readFully } from './fs-util';
import { sortedRunsOf, type ListRun } from './list-runs';

/**
 * Some of the filtered list's uins, ascending: at positions from `positions`
 * on, or each at its own. `end` is one past the last position read (the
 * list's count once it is read whole), where a removed uin past the list's
 * last one counts from.
 */
export interface ListedChunk {
  uins: Uint32Array;
  positions: number | Float64Array;
  end: number;
}

/** Uins read from a run at a time (32 KiB): a local-time task's few dozen runs hold about a MiB. */
const BLOCK_UINS = 4096;
/** Rows a merge hands over at a time. */
const MERGED_ROWS = 1 << 16;

/** One run's block in hand: `uins[index]` (at position `from + index`) is its head. */
interface RunHead {
  /** The run's index, which breaks ties: the first run holding a uin gives its position, as positionInList finds it. */
  run: number;
  end: number;
  uins: Uint32Array;
  length: number;
  index: number;
  from: number;
}

/**
 * A list written as sorted runs (ListRun) read back in ascending uin order,
 * each uin with its own position: a k-way merge whose next row is the least
 * run head, kept in a binary min-heap (log k steps a row). Each run is read
 * forward by positioned block reads, so the file is read once whatever the
 * number of runs, memory is one block per run, and a row awaits nothing but
 * the read of its run's next block. Reads the body as it goes, so its
 * checksum is not checked (the file's length and each uin's range are).
 */
export class RunsMerge {
  private readonly buffer: Buffer;

  private constructor(
    private readonly file: FileHandle,
    private readonly path: string,
    private readonly count: number,
    private readonly runs: readonly ListRun[],
    private readonly uinLimit: number,
    private readonly blockUins: number,
    private readonly rows: number,
  ) {
    this.buffer = Buffer.allocUnsafeSlow(blockUins * UIN_BYTES);
  }

  /**
   * Opens the list and checks its header, its length and `runs` as the
   * lookups do (sortedRunsOf); undefined, the file closed, when the list is
   * one sorted run, which is read faster in file order. `chunkBytes` bounds
   * a run's block and a chunk's rows (chunkBytes / 8 each; tests make it small).
   */
  static async open(
    path: string,
    runs: readonly ListRun[] | undefined,
    options: { uinLimit: number; chunkBytes?: number },
  ): Promise<RunsMerge | undefined> {
    const uinLimit = checkUinLimit(options.uinLimit);
    const asked = options.chunkBytes === undefined ? Infinity : positiveInteger('chunkBytes', options.chunkBytes);
    const perRead = Math.max(1, Math.floor(asked / UIN_BYTES));
    const file = await openForRead(path);
    let merge: RunsMerge | undefined;
    try {
      const bytes = Buffer.alloc(LIST_HEADER_BYTES);
      const header = decodeListHeader(bytes.subarray(0, await readFully(file, bytes, LIST_HEADER_BYTES, 0)));
      const stat = await file.stat();
      if (stat.isFile()) checkFileLength(header, stat.size);
      const sorted = sortedRunsOf(header, path, runs);
      if (sorted === undefined) return undefined;
      const [block, rows] = [Math.min(BLOCK_UINS, perRead), Math.min(MERGED_ROWS, perRead)];
      merge = new RunsMerge(file, path, header.count, sorted, uinLimit, block, rows);
      return merge;
    } finally {
      if (merge === undefined) await file.close();
    }
  }

  /** The merged rows a chunk at a time; a chunk's arrays are reused, valid until the next is asked for. */
  async *chunks(): AsyncGenerator<ListedChunk, void, undefined> {
    const heap: RunHead[] = [];
    let total = 0;
    for (let run = 0; run < this.runs.length; run++) {
      const { start, end } = this.runs[run]!;
      if (start >= end) continue;
      const head = {
        run,
        end,
        uins: new Uint32Array(Math.min(this.blockUins, end - start)),
        length: 0,
        index: 0,
        from: start,
      };
      await this.fill(head);
      heap.push(head);
      total += end - start;
    }
    for (let i = (heap.length >>> 1) - 1; i >= 0; i--) siftDown(heap, heap.length, i);
    const rows = Math.min(this.rows, total);
    const uins = new Uint32Array(rows);
    const positions = new Float64Array(rows);
    let size = heap.length;
    while (size > 0) {
      let n = 0;
      while (n < rows && size > 0) {
        const top = heap[0]!;
        uins[n] = top.uins[top.index]!;
        positions[n++] = top.from + top.index;
        if (++top.index === top.length) {
          if (top.from + top.length < top.end) await this.fill(top);
          else heap[0] = heap[--size]!;
        }
        siftDown(heap, size, 0);
      }
      yield { uins: uins.subarray(0, n), positions: positions.subarray(0, n), end: this.count };
    }
  }

  async close(): Promise<void> {
    await this.file.close();
  }

  /** Reads the run's next block (it has one) into `head.uins`, checking each uin's range. */
  private async fill(head: RunHead): Promise<void> {
    const from = head.from + head.length;
    const n = Math.min(this.blockUins, head.end - from);
    const bytes = n * UIN_BYTES;
    const got = await readFully(this.file, this.buffer, bytes, LIST_HEADER_BYTES + from * UIN_BYTES);
    if (got < bytes) throw new ListFormatError('LIST_TRUNCATED', `${this.path} ends before recipient ${from + n - 1}`);
    // Each u64 as (low, high) u32 words, as the decoder reads them: a uin in range has no high word.
    const words = new Uint32Array(this.buffer.buffer, this.buffer.byteOffset, n * 2);
    for (let i = 0; i < n; i++) {
      const low = words[2 * i]!;
      const high = words[2 * i + 1]!;
      if (high !== 0 || low >= this.uinLimit) this.outOfRange(high, low, from + i);
      head.uins[i] = low;
    }
    head.from = from;
    head.length = n;
    head.index = 0;
  }

  private outOfRange(high: number, low: number, position: number): never {
    throw uinOutOfRange(high, low, position, this.uinLimit);
  }
}

/** Restores the min-heap order of `heap[0, size)` below `i`, by head uin, then run. */
function siftDown(heap: RunHead[], size: number, i: number): void {
  const item = heap[i]!;
  const key = item.uins[item.index]!;
  for (;;) {
    let child = 2 * i + 1;
    if (child >= size) break;
    if (child + 1 < size && less(heap[child + 1]!, heap[child]!)) child++;
    const c = heap[child]!;
    const ck = c.uins[c.index]!;
    if (ck > key || (ck === key && c.run > item.run)) break;
    heap[i] = c;
    i = child;
  }
  heap[i] = item;
}

function less(a: RunHead, b: RunHead): boolean {
  const ka = a.uins[a.index]!;
  const kb = b.uins[b.index]!;
  return ka < kb || (ka === kb && a.run < b.run);
}
