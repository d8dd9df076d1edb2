/*
 * A list written as sorted runs straight from the uins and each one's run
 * (a local-time task's filtered list, group after group: docs/local-time.md),
 * without first laying the whole list out in memory in its new order.
 *
 * Why: that layout was a second array as large as the list, fresh memory
 * whose page faults alone cost about 0.1 s at 10^7 recipients on a VM, then
 * encoded to the file in another pass. Here the uins are taken a block at a
 * time: each block is sorted by run into one reused buffer, already encoded
 * (u64 little-endian), and each run's part of it is written at that run's
 * next offset in the file. A run receives its parts in order, so it keeps a
 * running CRC of its own; the body's CRC joins them in file order
 * (crc32Combine).
 */
import { randomBytes } from 'node:crypto';
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { ValidationError, PRIVATE_FILE_MODE } from '@herald/core';
import { crc32Combine, encodeListHeader, LIST_HEADER_BYTES, ListFlags, UIN_BYTES } from '@herald/core/recipient-list';
import { publish, removeQuietly, writeFully } from './fs-util';
import type { ListRun } from './list-runs';
import type { WrittenList } from './list-writer';
import { checkFlags } from './order';

/** A list's uins and the run each goes to: the runs are laid out in index order, each keeping the uins' order. */
export interface ListInRuns {
  uins: Uint32Array;
  /** `runOf[i]`: the index in `runs` of the run `uins[i]` goes to. */
  runOf: Uint8Array;
  /** Contiguous from 0, each as long as the number of uins it receives. */
  runs: readonly ListRun[];
}

/** Uins sorted by run per block: 4 MiB of encoded body, two buffers in turn. */
const BLOCK_UINS = 1 << 19;

/**
 * Writes `list` to `path` run after run (flags without SORTED: UNIQUE when
 * the uins are distinct, which is taken on trust as for any unsorted list),
 * through a temp file published whole, like writeRecipientListFile.
 *
 * Two block buffers in turn: a block's parts are written (each run's at its
 * own offset, all at once on the thread pool) while the next block is
 * sorted into the other buffer. The runs' sizes are checked against what
 * the blocks held before anything is published.
 */
export async function writeListInRuns(
  path: string,
  list: ListInRuns,
  flags: number = ListFlags.UNIQUE,
): Promise<WrittenList> {
  checkFlags(flags);
  if ((flags & ListFlags.SORTED) !== 0)
    throw new ValidationError('a list written in runs cannot claim SORTED', { flags });
  const { uins, runOf, runs } = list;
  checkRunsTile(list);
  const tempPath = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tempPath, 'w', PRIVATE_FILE_MODE);
  let writing: Promise<unknown> = Promise.resolve();
  try {
    const next = Float64Array.from(runs, (run) => run.start);
    const crcs = new Array<number>(runs.length).fill(0);
    const capacity = Math.min(BLOCK_UINS, Math.max(1, uins.length));
    const blocks = [new BlockSort(runs.length, capacity), new BlockSort(runs.length, capacity)];
    for (let from = 0, turn = 0; from < uins.length; from += BLOCK_UINS, turn ^= 1) {
      const block = blocks[turn]!;
      // This buffer's last writes were awaited before the other buffer's began.
      block.sort(uins, runOf, from, Math.min(from + BLOCK_UINS, uins.length));
      const writes: Promise<void>[] = [];
      for (let r = 0; r < runs.length; r++) {
        const part = block.partOf(r);
        if (part.length === 0) continue;
        crcs[r] = crc32(part, crcs[r]);
        writes.push(writeFully(handle, part, LIST_HEADER_BYTES + next[r]! * UIN_BYTES));
        next[r]! += part.length / UIN_BYTES;
      }
      await writing;
      writing = Promise.all(writes);
    }
    await writing;
    checkRunsFilled(list, next);
    let bodyCrc = 0;
    for (let r = 0; r < runs.length; r++)
      bodyCrc = crc32Combine(bodyCrc, crcs[r]!, (runs[r]!.end - runs[r]!.start) * UIN_BYTES);
    await writeFully(handle, encodeListHeader({ flags, count: uins.length, bodyCrc }), 0);
    await publish(handle, tempPath, path);
    return { count: uins.length, checksum: bodyCrc, bytes: LIST_HEADER_BYTES + uins.length * UIN_BYTES };
  } catch (error) {
    // No write may land in the file after it is removed.
    await writing.catch(() => undefined);
    await handle.close().catch(() => undefined);
    await removeQuietly(tempPath);
    throw error;
  }
}

/** The uins of `list` in the order the file holds them (tests, small lists). */
export function inRunOrder(list: ListInRuns): Uint32Array {
  checkRunsTile(list);
  const { uins, runOf, runs } = list;
  const out = new Uint32Array(uins.length);
  const next = Float64Array.from(runs, (run) => run.start);
  for (let i = 0; i < uins.length; i++) {
    const r = runOf[i]!;
    if (r >= runs.length) throw noSuchRun(i, r, runs.length);
    out[next[r]!++] = uins[i]!;
  }
  // A run given the wrong size spilled into its neighbour above; the copy is refused whole.
  checkRunsFilled(list, next);
  return out;
}

/** Refuses runs that are not contiguous from 0 to the list's end: the file would have holes or overlaps. */
function checkRunsTile({ uins, runOf, runs }: ListInRuns): void {
  if (runOf.length !== uins.length)
    throw new ValidationError(`runOf holds ${runOf.length} runs for ${uins.length} uins`, { option: 'runOf' });
  let start = 0;
  for (let r = 0; r < runs.length; r++) {
    const { start: s, end } = runs[r]!;
    if (s !== start || end < s)
      throw new ValidationError(`run ${r} is [${s}, ${end}), but the runs before it end at ${start}`, {
        option: 'runs',
      });
    start = end;
  }
  if (start !== uins.length)
    throw new ValidationError(`the runs end at ${start}, but the list holds ${uins.length} uins`, { option: 'runs' });
}

function noSuchRun(i: number, run: number, runs: number): ValidationError {
  return new ValidationError(`uin ${i} goes to run ${run}, of ${runs}`, { option: 'runOf' });
}

/** Refuses runs whose sizes are not what their uins filled (`next`: where each run's writes ended). */
function checkRunsFilled({ runs }: ListInRuns, next: Float64Array): void {
  for (let r = 0; r < runs.length; r++) {
    const { start, end } = runs[r]!;
    if (next[r] !== end)
      throw new ValidationError(`run ${r} is [${start}, ${end}), but its uins fill [${start}, ${next[r]})`, {
        option: 'runs',
      });
  }
}

/**
 * One block of uins counting-sorted by run into a reused buffer, encoded as
 * the file holds them: u64 little-endian, the uin in the low word. The
 * buffer starts zeroed and only low words are ever written, so the high
 * words stay zero.
 */
class BlockSort {
  private readonly buffer: Buffer;
  private readonly words: Uint32Array;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;

  constructor(runs: number, capacity: number) {
    this.buffer = Buffer.alloc(capacity * UIN_BYTES);
    this.words = new Uint32Array(this.buffer.buffer, this.buffer.byteOffset, capacity * 2);
    this.starts = new Uint32Array(runs);
    this.ends = new Uint32Array(runs);
  }

  sort(uins: Uint32Array, runOf: Uint8Array, from: number, to: number): void {
    const { starts, ends, words } = this;
    const runs = ends.length;
    ends.fill(0);
    for (let i = from; i < to; i++) {
      const r = runOf[i]!;
      if (r >= runs) throw noSuchRun(i, r, runs);
      ends[r]!++;
    }
    let at = 0;
    for (let r = 0; r < runs; r++) {
      starts[r] = at;
      at += ends[r]!;
      ends[r] = starts[r]!;
    }
    for (let i = from; i < to; i++) words[2 * ends[runOf[i]!]!++] = uins[i]!;
  }

  /** Run r's uins of this block, encoded. */
  partOf(r: number): Buffer {
    return this.buffer.subarray(this.starts[r]! * UIN_BYTES, this.ends[r]! * UIN_BYTES);
  }
}
