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

/** Uins sorted by run per block: 4 MiB of encoded body, reused block after block. */
const BLOCK_UINS = 1 << 19;

/**
 * Writes `list` to `path` run after run (flags without SORTED: UNIQUE when
 * the uins are distinct, which is taken on trust as for any unsorted list),
 * through a temp file published whole, like writeRecipientListFile.
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
  checkRuns(list);
  const tempPath = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(tempPath, 'w', PRIVATE_FILE_MODE);
  try {
    const next = Float64Array.from(runs, (run) => run.start);
    const crcs = new Array<number>(runs.length).fill(0);
    const block = new BlockSort(runs.length, Math.min(BLOCK_UINS, Math.max(1, uins.length)));
    for (let from = 0; from < uins.length; from += BLOCK_UINS) {
      const to = Math.min(from + BLOCK_UINS, uins.length);
      block.sort(uins, runOf, from, to);
      for (let r = 0; r < runs.length; r++) {
        const part = block.partOf(r);
        if (part.length === 0) continue;
        crcs[r] = crc32(part, crcs[r]);
        await writeFully(handle, part, LIST_HEADER_BYTES + next[r]! * UIN_BYTES);
        next[r]! += part.length / UIN_BYTES;
      }
    }
    let bodyCrc = 0;
    for (let r = 0; r < runs.length; r++)
      bodyCrc = crc32Combine(bodyCrc, crcs[r]!, (runs[r]!.end - runs[r]!.start) * UIN_BYTES);
    await writeFully(handle, encodeListHeader({ flags, count: uins.length, bodyCrc }), 0);
    await publish(handle, tempPath, path);
    return { count: uins.length, checksum: bodyCrc, bytes: LIST_HEADER_BYTES + uins.length * UIN_BYTES };
  } catch (error) {
    await handle.close().catch(() => undefined);
    await removeQuietly(tempPath);
    throw error;
  }
}

/** The uins of `list` in the order the file holds them (tests, small lists). */
export function inRunOrder(list: ListInRuns): Uint32Array {
  checkRuns(list);
  const out = new Uint32Array(list.uins.length);
  const next = list.runs.map((run) => run.start);
  for (let i = 0; i < list.uins.length; i++) out[next[list.runOf[i]!]!++] = list.uins[i]!;
  return out;
}

/** Refuses runs that do not tile the list with the sizes `runOf` gives them: the file would have holes or overlaps. */
function checkRuns({ uins, runOf, runs }: ListInRuns): void {
  if (runOf.length !== uins.length)
    throw new ValidationError(`runOf holds ${runOf.length} runs for ${uins.length} uins`, { option: 'runOf' });
  const counts = new Float64Array(runs.length);
  for (let i = 0; i < runOf.length; i++) {
    if (runOf[i]! >= runs.length)
      throw new ValidationError(`uin ${i} goes to run ${runOf[i]}, of ${runs.length}`, { option: 'runOf' });
    counts[runOf[i]!]!++;
  }
  let start = 0;
  for (let r = 0; r < runs.length; r++) {
    const { start: s, end } = runs[r]!;
    if (s !== start || end - s !== counts[r])
      throw new ValidationError(`run ${r} is [${s}, ${end}), but its uins fill [${start}, ${start + counts[r]!})`, {
        option: 'runs',
      });
    start = end;
  }
}

/** One block of uins counting-sorted by run into a reused buffer, encoded as the file holds them. */
class BlockSort {
  private readonly buffer: Buffer;
  private readonly words: Uint32Array;
  private readonly starts: Uint32Array;
  private readonly ends: Uint32Array;

  constructor(runs: number, capacity: number) {
    this.buffer = Buffer.allocUnsafeSlow(capacity * UIN_BYTES);
    this.words = new Uint32Array(this.buffer.buffer, this.buffer.byteOffset, capacity * 2);
    this.starts = new Uint32Array(runs);
    this.ends = new Uint32Array(runs);
  }

  sort(uins: Uint32Array, runOf: Uint8Array, from: number, to: number): void {
    const { starts, ends, words } = this;
    ends.fill(0);
    for (let i = from; i < to; i++) ends[runOf[i]!]!++;
    let at = 0;
    for (let r = 0; r < starts.length; r++) {
      starts[r] = at;
      at += ends[r]!;
      ends[r] = starts[r]!;
    }
    // Little-endian u64s: the uin in the low word, zero in the high one (as RecipientListEncoder writes them).
    for (let i = from; i < to; i++) {
      const w = 2 * ends[runOf[i]!]!++;
      words[w] = uins[i]!;
      words[w + 1] = 0;
    }
  }

  /** Run r's uins of this block, encoded. */
  partOf(r: number): Buffer {
    return this.buffer.subarray(this.starts[r]! * UIN_BYTES, this.ends[r]! * UIN_BYTES);
  }
}
