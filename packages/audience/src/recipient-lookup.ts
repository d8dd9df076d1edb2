import { open, type FileHandle } from 'node:fs/promises';
import { decodeRemovedHeader, removedHeaderBytes, removedSectionCount, type RemovalFacts } from '@herald/core/fate';
import { decodeListHeader, LIST_HEADER_BYTES, ListFlags, UIN_BYTES } from '@herald/core/recipient-list';
import { ListFormatError } from '@herald/core';

/**
 * One recipient looked up in a task's files without reading them whole
 * (docs/recipient-truth.md): its position in the filtered list, and which
 * filter link removed it, each a binary search by positioned reads, so a
 * lookup costs about log2(n) reads of a few bytes whatever the list's size.
 */

/** The removed-sets file beside a filtered list `f_<taskId>.hrl`: `f_<taskId>.removed`. */
export function removedPathOf(filteredListPath: string): string {
  return filteredListPath.replace(/\.hrl$/, '.removed');
}

/**
 * The uin's position in a sorted, distinct recipient-list file, or undefined
 * when it is not there. `sample`: the list is a canary's (docs/rollouts.md),
 * distinct and in two sorted runs, [0, sample) and [sample, count): each is
 * searched.
 */
export async function positionInList(path: string, uin: number, sample?: number): Promise<number | undefined> {
  const file = await open(path, 'r');
  try {
    const header = decodeListHeader(await readAt(file, path, 0, LIST_HEADER_BYTES));
    const wanted = sample === undefined ? ListFlags.SORTED | ListFlags.UNIQUE : ListFlags.UNIQUE;
    if ((header.flags & wanted) !== wanted)
      throw new ListFormatError('LIST_BAD_HEADER', `${path} is not sorted and unique: no position to search`);
    const cell = Buffer.alloc(UIN_BYTES);
    const at = async (i: number) => {
      const { bytesRead } = await file.read(cell, 0, UIN_BYTES, LIST_HEADER_BYTES + i * UIN_BYTES);
      if (bytesRead < UIN_BYTES) throw new ListFormatError('LIST_TRUNCATED', `${path} ends before recipient ${i}`);
      return cell.readUInt32LE(0) + cell.readUInt32LE(4) * 0x1_0000_0000;
    };
    if (sample === undefined || (header.flags & ListFlags.SORTED) !== 0)
      return await lowerBoundOf(header.count, at, uin);
    const split = Math.min(sample, header.count);
    const inSample = await lowerBoundOf(split, at, uin);
    if (inSample !== undefined) return inSample;
    const inRest = await lowerBoundOf(header.count - split, (i) => at(split + i), uin);
    return inRest === undefined ? undefined : split + inRest;
  } finally {
    await file.close();
  }
}

/**
 * The uin's position in a list made of sorted runs (a local-time task's
 * delivery-order list, group after group: docs/local-time.md), searching each
 * run [start, end) in turn; the index of the run holding it comes with it.
 * Undefined when no run holds it.
 */
export async function positionInRuns(
  path: string,
  uin: number,
  runs: readonly { start: number; end: number }[],
): Promise<{ position: number; run: number } | undefined> {
  const file = await open(path, 'r');
  try {
    const header = decodeListHeader(await readAt(file, path, 0, LIST_HEADER_BYTES));
    const cell = Buffer.alloc(UIN_BYTES);
    const at = async (i: number) => {
      const { bytesRead } = await file.read(cell, 0, UIN_BYTES, LIST_HEADER_BYTES + i * UIN_BYTES);
      if (bytesRead < UIN_BYTES) throw new ListFormatError('LIST_TRUNCATED', `${path} ends before recipient ${i}`);
      return cell.readUInt32LE(0) + cell.readUInt32LE(4) * 0x1_0000_0000;
    };
    for (let run = 0; run < runs.length; run++) {
      const { start, end } = runs[run]!;
      if (end > header.count) throw new ListFormatError('LIST_TRUNCATED', `${path} ends before recipient ${end - 1}`);
      const position = start < end ? await lowerBoundOf(end, at, uin, start) : undefined;
      if (position !== undefined) return { position, run };
    }
    return undefined;
  } finally {
    await file.close();
  }
}

/**
 * What the removed-sets file says of a uin: the first link (chain order)
 * whose set holds it, besides dedupe, and how many extra copies dedupe
 * removed. No file: the task was pre-processed before the record existed.
 */
export async function removalOf(path: string, uin: number): Promise<RemovalFacts> {
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { recorded: false };
    throw error;
  }
  try {
    const count = removedSectionCount(await readAt(file, path, 0, 8));
    const header = decodeRemovedHeader(await readAt(file, path, 0, removedHeaderBytes(count)));
    const cell = Buffer.alloc(4);
    let duplicateCopies = 0;
    for (const section of header.sections) {
      const at = async (i: number) => {
        const { bytesRead } = await file.read(cell, 0, 4, section.offset + i * 4);
        if (bytesRead < 4) throw new ListFormatError('LIST_TRUNCATED', `${path} ends inside its ${section.reason} set`);
        return cell.readUInt32LE(0);
      };
      const first = await lowerBoundOf(section.count, at, uin);
      if (first === undefined) continue;
      if (section.reason !== 'duplicate')
        return { recorded: true, complete: header.complete, reason: section.reason, duplicateCopies };
      let last = first;
      while (last + 1 < section.count && (await at(last + 1)) === uin) last++;
      duplicateCopies = last - first + 1;
    }
    return { recorded: true, complete: header.complete, reason: undefined, duplicateCopies };
  } finally {
    await file.close();
  }
}

/** The index of the first `uin` in an ascending sequence of `n` read by `at`, or undefined. */
async function lowerBoundOf(
  n: number,
  at: (i: number) => Promise<number>,
  uin: number,
  from = 0,
): Promise<number | undefined> {
  let lo = from;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((await at(mid)) < uin) lo = mid + 1;
    else hi = mid;
  }
  return lo < n && (await at(lo)) === uin ? lo : undefined;
}

async function readAt(file: FileHandle, path: string, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length)
    throw new ListFormatError('LIST_TRUNCATED', `${path} is shorter than its ${length}-byte header`);
  return buffer;
}
