import { open, type FileHandle } from 'node:fs/promises';
import {
  decodeRemovedHeader,
  removedHeaderBytes,
  removedSectionCount,
  type RemovalFacts,
  type RemovedSection,
} from '@herald/core/fate';
import { decodeListHeader, LIST_HEADER_BYTES, UIN_BYTES } from '@herald/core/recipient-list';
import { ListFormatError } from '@herald/core';
import { sortedRunsOf, type ListRun } from './list-runs';
import { SortedCells } from './sorted-cells';

/**
 * One recipient looked up in a task's files without reading them whole
 * (docs/recipient-truth.md): its position in the filtered list, and which
 * filter link removed it, each a binary search by positioned reads
 * (SortedCells), so a lookup costs about log2(n / 512) reads of 8 bytes and
 * one of 4 KiB per file whatever the list's size; OpenTaskFiles keeps both
 * files open and their top probes in memory for many lookups.
 */

/** The removed-sets file beside a filtered list `f_<taskId>.hrl`: `f_<taskId>.removed`. */
export function removedPathOf(filteredListPath: string): string {
  return filteredListPath.replace(/\.hrl$/, '.removed');
}

/**
 * The uin's position in a sorted, distinct recipient-list file, or undefined
 * when it is not there. `runs`: the list is distinct and written as sorted
 * runs (a canary's sample then the rest, a local-time task's groups: see
 * ListRun), each searched in turn; ignored for a list whose header says it
 * is sorted.
 */
export async function positionInList(
  path: string,
  uin: number,
  runs?: readonly ListRun[],
): Promise<number | undefined> {
  const file = await open(path, 'r');
  try {
    return await (await openListCells(file, path, runs)).positionOf(uin);
  } finally {
    await file.close();
  }
}

/**
 * The uin's position in a list made of sorted runs (the delivery-order list
 * of a local-time task pre-processed before the filtered list was itself
 * written in runs: docs/local-time.md), searching each run [start, end) in
 * turn whatever the header says; the index of the run holding it comes with
 * it. Undefined when no run holds it.
 */
export async function positionInRuns(
  path: string,
  uin: number,
  runs: readonly ListRun[],
): Promise<{ position: number; run: number } | undefined> {
  const file = await open(path, 'r');
  try {
    const header = decodeListHeader(await readAt(file, path, 0, LIST_HEADER_BYTES));
    const beyond = runs.find((r) => r.end > header.count);
    if (beyond !== undefined)
      throw new ListFormatError('LIST_TRUNCATED', `${path} ends before recipient ${beyond.end - 1}`);
    const cells = new SortedCells(file, path, LIST_HEADER_BYTES, header.count, UIN_BYTES, 'list');
    return await firstRunHolding(cells, runs, uin);
  } finally {
    await file.close();
  }
}

/** The uin's position in the first run holding it, and that run's index. */
async function firstRunHolding(
  cells: SortedCells,
  runs: readonly ListRun[],
  uin: number,
): Promise<{ position: number; run: number } | undefined> {
  for (let run = 0; run < runs.length; run++) {
    const { start, end } = runs[run]!;
    const position = start < end ? await cells.indexOf(uin, start, end) : undefined;
    if (position !== undefined) return { position, run };
  }
  return undefined;
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
    return await (await openRemovedSets(file, path)).removalOf(uin);
  } finally {
    await file.close();
  }
}

/** A filtered list's uins, searchable: one sorted run, or (`runs` given) the sorted runs it was written in. */
export class ListCells {
  constructor(
    private readonly cells: SortedCells,
    private readonly runs: readonly ListRun[] | undefined,
  ) {}

  async positionOf(uin: number): Promise<number | undefined> {
    if (this.runs === undefined) return this.cells.indexOf(uin);
    return (await firstRunHolding(this.cells, this.runs, uin))?.position;
  }
}

/** The list in `file` made searchable after its header is checked (`runs`: positionInList's). */
export async function openListCells(file: FileHandle, path: string, runs?: readonly ListRun[]): Promise<ListCells> {
  const header = decodeListHeader(await readAt(file, path, 0, LIST_HEADER_BYTES));
  const searched = sortedRunsOf(header, path, runs);
  return new ListCells(new SortedCells(file, path, LIST_HEADER_BYTES, header.count, UIN_BYTES, 'list'), searched);
}

/** A removed-sets file's sections, searchable. */
export class RemovedSets {
  constructor(
    private readonly complete: boolean,
    private readonly sections: readonly { reason: RemovedSection['reason']; cells: SortedCells }[],
  ) {}

  async removalOf(uin: number): Promise<RemovalFacts> {
    const { complete } = this;
    let duplicateCopies = 0;
    for (const { reason, cells } of this.sections) {
      const first = await cells.indexOf(uin);
      if (first === undefined) continue;
      if (reason !== 'duplicate') return { recorded: true, complete, reason, duplicateCopies };
      let last = first;
      while (last + 1 < cells.count && (await cells.at(last + 1)) === uin) last++;
      duplicateCopies = last - first + 1;
    }
    return { recorded: true, complete, reason: undefined, duplicateCopies };
  }
}

/** The removed sets in `file` made searchable after its header is read. */
export async function openRemovedSets(file: FileHandle, path: string): Promise<RemovedSets> {
  const count = removedSectionCount(await readAt(file, path, 0, 8));
  const header = decodeRemovedHeader(await readAt(file, path, 0, removedHeaderBytes(count)));
  return new RemovedSets(
    header.complete,
    header.sections.map((s) => ({
      reason: s.reason,
      cells: new SortedCells(file, path, s.offset, s.count, 4, `${s.reason} set`),
    })),
  );
}

/**
 * A filtered list and its removed sets opened once for many lookups (a
 * completed task's, whose files no longer change: docs/recipient-truth.md,
 * "What a lookup keeps"). Holds two file handles and at most a few thousand
 * probes per file until close().
 */
export class OpenTaskFiles {
  private constructor(
    private readonly handles: readonly FileHandle[],
    private readonly list: ListCells,
    private readonly removed: RemovedSets | undefined,
  ) {}

  /**
   * The list at `listPath` and the removed sets beside it (none: a task
   * filtered before they were recorded); `runs`: positionInList's.
   */
  static async open(listPath: string, runs?: readonly ListRun[]): Promise<OpenTaskFiles> {
    const handles: FileHandle[] = [];
    try {
      handles.push(await open(listPath, 'r'));
      const list = await openListCells(handles[0]!, listPath, runs);
      const removedPath = removedPathOf(listPath);
      const removedFile = await open(removedPath, 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (removedFile !== undefined) handles.push(removedFile);
      const removed = removedFile === undefined ? undefined : await openRemovedSets(removedFile, removedPath);
      return new OpenTaskFiles(handles, list, removed);
    } catch (error) {
      await Promise.all(handles.map((h) => h.close()));
      throw error;
    }
  }

  positionOf(uin: number): Promise<number | undefined> {
    return this.list.positionOf(uin);
  }

  removalOf(uin: number): Promise<RemovalFacts> {
    return this.removed === undefined ? Promise.resolve({ recorded: false }) : this.removed.removalOf(uin);
  }

  async close(): Promise<void> {
    await Promise.all(this.handles.map((h) => h.close()));
  }
}

async function readAt(file: FileHandle, path: string, position: number, length: number): Promise<Buffer> {
  const buffer = Buffer.alloc(length);
  const { bytesRead } = await file.read(buffer, 0, length, position);
  if (bytesRead < length)
    throw new ListFormatError('LIST_TRUNCATED', `${path} is shorter than its ${length}-byte header`);
  return buffer;
}
