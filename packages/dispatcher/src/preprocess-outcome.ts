import { link, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { endianness } from 'node:os';
import { ErrorCodes, HeraldError, isHeraldError, PRIVATE_FILE_MODE } from '@herald/core';
import { encodeRemovedHeader, encodeRemovedSets } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import type { FilterReason } from '@herald/core/task';
import { removedPathOf, writeRecipientListFile, type ListRepository } from '@herald/audience';
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
   * task published first; answers whichever outcome is on record then. A
   * canary's list (sample first: two sorted runs) is written without the
   * SORTED flag.
   */
  async publish(
    kept: Uint32Array,
    removed: RemovedRecord,
    deliveryOrder: DeliveryOrder | undefined,
    result: Done,
    flags = ListFlags.SORTED | ListFlags.UNIQUE,
  ): Promise<Done> {
    return this.stage(result.filteredListId, kept, removed, flags).publish(deliveryOrder, result);
  }

  /**
   * Starts writing this run's filtered list and removed sets under run names
   * of their own, before the rest of the outcome is known: a local-time task
   * groups its recipients while their disk writes and fsyncs go on. Nothing
   * takes a published name before the returned stage's `publish`; every
   * stage must end in `publish` or `discard`, which remove the run files.
   * `kept` must not change until then.
   */
  stage(
    filteredListId: string,
    kept: Uint32Array,
    removed: RemovedRecord,
    flags = ListFlags.SORTED | ListFlags.UNIQUE,
  ): StagedOutcome {
    const listPath = this.lists.pathOf(filteredListId);
    const runPath = runPathOf(listPath);
    const removedRunPath = runPathOf(removedPathOf(listPath));
    const writes = [
      writeRecipientListFile(runPath, kept, flags),
      writeFile(removedRunPath, removedFileChunks(removed), { flush: true, mode: PRIVATE_FILE_MODE }),
    ];
    // Observed here: were one to fail while the caller is still grouping, it would otherwise go unhandled.
    for (const write of writes) write.catch(() => undefined);
    return new StagedOutcome(this, { listPath, runPath, removedRunPath, writes });
  }

  /** The end of a stage's publish, once this run's files are written: see the class comment for the race. */
  async publishStaged(
    staged: StagedFiles,
    order: { path: string; runPath: string } | undefined,
    result: Done,
  ): Promise<Done> {
    const { taskId, epoch } = result;
    if (!(await linkUnlessTaken(staged.runPath, staged.listPath))) {
      const first = await this.waitForOutcome(taskId, epoch);
      if (first !== undefined) return first;
      await rename(staged.runPath, staged.listPath); // the first run died before its outcome: nothing streams from its list
    }
    // The delivery-order list of the run whose filtered list won: it matches the outcome's groups.
    if (order) await rename(order.runPath, order.path);
    // Between the list and the outcome: a task with an outcome always has the removed sets of its list's run.
    await rename(staged.removedRunPath, removedPathOf(staged.listPath));
    await this.record(result);
    return result;
  }

  /** Where a delivery-order list is published. */
  orderPathOf(order: DeliveryOrder): string {
    return this.lists.pathOf(order.id);
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

/** A local-time task's delivery-order list (local-groups.ts), published beside the filtered list. */
export interface DeliveryOrder {
  id: string;
  uins: Uint32Array;
}

/** A stage's run files and their writes (started by `PreprocessOutcomes.stage`). */
interface StagedFiles {
  listPath: string;
  runPath: string;
  removedRunPath: string;
  writes: Promise<unknown>[];
}

/** This run's filtered list and removed sets being written, not yet published. */
export class StagedOutcome {
  private ended = false;

  constructor(
    private readonly outcomes: PreprocessOutcomes,
    private readonly files: StagedFiles,
  ) {}

  /**
   * Writes the delivery-order list (a local-time task's), waits for every
   * write, then publishes as `PreprocessOutcomes.publish` does; the run
   * files are removed whatever happens.
   */
  async publish(deliveryOrder: DeliveryOrder | undefined, result: Done): Promise<Done> {
    this.end('publish');
    const path = deliveryOrder && this.outcomes.orderPathOf(deliveryOrder);
    const order = deliveryOrder && path ? { path, runPath: runPathOf(path) } : undefined;
    try {
      // The delivery order is written while the filtered list's fsync may still run: their disk waits overlap.
      await allWritten([
        ...this.files.writes,
        ...(deliveryOrder && order ? [writeRecipientListFile(order.runPath, deliveryOrder.uins)] : []),
      ]);
      return await this.outcomes.publishStaged(this.files, order, result);
    } finally {
      await this.removeRunFiles(order?.runPath);
    }
  }

  /** Publishes nothing: waits for the writes to end, then removes their files. */
  async discard(): Promise<void> {
    this.end('discard');
    await Promise.allSettled(this.files.writes);
    await this.removeRunFiles(undefined);
  }

  private end(operation: string): void {
    if (this.ended)
      throw new HeraldError(ErrorCodes.INTERNAL, `a staged pre-processing outcome was already ended (${operation})`);
    this.ended = true;
  }

  private async removeRunFiles(orderRunPath: string | undefined): Promise<void> {
    const paths = [this.files.runPath, this.files.removedRunPath, ...(orderRunPath ? [orderRunPath] : [])];
    await Promise.all(paths.map((path) => unlink(path).catch(() => undefined)));
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

/** Waits for every write, then throws the first failure: none is left running when the caller cleans up. */
async function allWritten(writes: readonly Promise<unknown>[]): Promise<void> {
  const failed = (await Promise.allSettled(writes)).find((w) => w.status === 'rejected');
  if (failed !== undefined) throw (failed as PromiseRejectedResult).reason;
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
