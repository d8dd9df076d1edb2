import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { endianness } from 'node:os';
import { ErrorCodes, HeraldError, isHeraldError, PRIVATE_FILE_MODE } from '@herald/core';
import { encodeRemovedHeader, encodeRemovedSets } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import type { FilterReason } from '@herald/core/task';
import {
  removedPathOf,
  writeListInRuns,
  writeRecipientListFile,
  type ListInRuns,
  type ListRepository,
} from '@herald/audience';
import { decodeMessage, encodeMessage, type PreprocessResult } from '@herald/transport';

type Done = Extract<PreprocessResult, { ok: true }>;

/**
 * Pre-processing happens once per task, however often it is asked for.
 *
 * A scheduler asks again when no result came (the dispatcher died mid-way,
 * or the result was lost with a link), and the first run may still be going,
 * on this dispatcher or another one sharing the list storage. Two runs of the
 * chain need not agree (a frequency filter reads counters that the first
 * run's deliveries move), and units may already stream from the first run's
 * filtered list, so a second run must never replace it. So the filtered list
 * `f_<taskId>` and its outcome record `f_<taskId>.outcome` (the result frame,
 * transport codec) are published without clobbering (a hard link, which fails
 * when the name exists), list first, outcome second:
 *
 * - an outcome on record: the task was pre-processed; answer it again;
 * - our list linked first: write the outcome, answer it;
 * - a list already there: another run published first; wait up to `waitMs`
 *   for its outcome and answer that. None by then means that run died between
 *   its two writes, before any result was sent, so nothing streams from its
 *   list: ours replaces it.
 */
export class PreprocessOutcomes {
  constructor(
    private readonly lists: ListRepository,
    private readonly waitMs = 10_000,
  ) {}

  /** The task's recorded outcome, answered under `epoch` (the asking owner's). */
  async read(taskId: number, epoch: number): Promise<Done | undefined> {
    let frame: Buffer;
    try {
      frame = await readFile(this.outcomePath(taskId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let message;
    try {
      message = decodeMessage(frame);
    } catch (error) {
      const code = isHeraldError(error) ? error.code : ErrorCodes.FRAME_MALFORMED;
      throw new HeraldError(
        code,
        `the pre-processing outcome of task ${taskId} (${this.outcomePath(taskId)}) is unreadable: ${(error as Error).message}`,
        { cause: error, details: { taskId } },
      );
    }
    if (message.kind !== 'preprocess.result' || !message.ok || message.taskId !== taskId) {
      throw new HeraldError(
        ErrorCodes.FRAME_MALFORMED,
        `the pre-processing outcome of task ${taskId} (${this.outcomePath(taskId)}) is not a successful result of that task`,
        { details: { taskId } },
      );
    }
    return { ...message, epoch };
  }

  /**
   * Publishes this run's filtered list and result unless another run of the
   * task published first; answers whichever outcome is on record then. The
   * list comes laid out, or as uins and each one's run (a local-time task's,
   * written straight into its runs: audience's writeListInRuns). A
   * list that is not one sorted run (a canary's sample then the rest; a
   * local-time task's groups, one after another) is written without the
   * SORTED flag. `alsoAs`: another list id the published list is linked as:
   * a local-time task's delivery-order list, the id its units name (the same
   * file, not a second copy).
   */
  async publish(
    kept: Uint32Array | ListInRuns,
    removed: RemovedRecord,
    result: Done,
    options: { flags?: number; alsoAs?: string } = {},
  ): Promise<Done> {
    const { taskId, epoch } = result;
    const listPath = this.lists.pathOf(result.filteredListId);
    const runPath = runPathOf(listPath);
    try {
      const flags = options.flags ?? ListFlags.SORTED | ListFlags.UNIQUE;
      await (kept instanceof Uint32Array
        ? writeRecipientListFile(runPath, kept, flags)
        : writeListInRuns(runPath, kept, flags));
      if (!(await linkUnlessTaken(runPath, listPath))) {
        const first = await this.waitForOutcome(taskId, epoch);
        if (first !== undefined) return first;
        await rename(runPath, listPath); // the first run died before its outcome: nothing streams from its list
      }
      // Linked once this run's list has won, over any a dead run left: it is the list the outcome describes.
      if (options.alsoAs !== undefined) await linkReplacing(listPath, this.lists.pathOf(options.alsoAs));
      // Between the list and the outcome: a task with an outcome always has the removed sets of its list's run.
      await writeAtomically(removedPathOf(listPath), removedFileChunks(removed));
      await this.record(result);
      return result;
    } finally {
      await unlink(runPath).catch(() => undefined);
    }
  }

  private async record(result: Done): Promise<void> {
    await writeAtomically(this.outcomePath(result.taskId), encodeMessage(result));
  }

  private async waitForOutcome(taskId: number, epoch: number): Promise<Done | undefined> {
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      const outcome = await this.read(taskId, epoch);
      if (outcome !== undefined || Date.now() >= deadline) return outcome;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  private outcomePath(taskId: number): string {
    return this.lists.pathOf(`f_${taskId}`).replace(/\.hrl$/, '.outcome');
  }
}

/** What each filter link removed, as the chain recorded it (filters/filter.ts, ChainResult). */
export interface RemovedRecord {
  sets: { reason: FilterReason; uins: Uint32Array }[];
  complete: boolean;
}

/**
 * The removed-sets file (core `encodeRemovedSets`) as its header and then
 * each set's own memory: u32 little-endian is how this machine holds them,
 * so nothing is encoded or copied (a big-endian one encodes the whole file).
 */
function removedFileChunks(removed: RemovedRecord): Uint8Array[] {
  if (endianness() !== 'LE') return [encodeRemovedSets(removed.sets, removed.complete)];
  const sections = removed.sets.map((set) => ({ reason: set.reason, count: set.uins.length }));
  return [
    encodeRemovedHeader(sections, removed.complete),
    ...removed.sets.map((set) => new Uint8Array(set.uins.buffer, set.uins.byteOffset, set.uins.byteLength)),
  ];
}

async function writeAtomically(path: string, bytes: Uint8Array | readonly Uint8Array[]): Promise<void> {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(temp, bytes, { flush: true, mode: PRIVATE_FILE_MODE });
  try {
    await rename(temp, path);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** A run's own name for a list it writes before knowing whether it publishes it. */
function runPathOf(path: string): string {
  return `${path}.${process.pid}.${randomBytes(4).toString('hex')}.run`;
}

/** Links `from` as `to`, replacing what `to` named (a hard link under a run's own name, renamed over it). */
async function linkReplacing(from: string, to: string): Promise<void> {
  const temp = runPathOf(to);
  await link(from, temp);
  try {
    await rename(temp, to);
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** Links `from` as `to` unless `to` exists (false then): an atomic create-if-absent. */
async function linkUnlessTaken(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}
