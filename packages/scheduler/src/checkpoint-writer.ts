import { ErrorCodes, isHeraldError } from '@herald/core';
import { supersedes, noopLogger, type Coordinator, type Logger, type UnitCheckpoint } from '@herald/core/ports';

/**
 * The least time between two checkpoint writes of one unit. A unit confirmed
 * 50-100 batches a second in the production bench (3 x 10^6, 4,096 per
 * batch), each one a ZooKeeper read and compare-and-set; at most 10 writes a
 * second keep a restarted owner's resume point within a tenth of a second of
 * what it had recorded, the batches in between reported again from the
 * executors' confirmed-batch logs, not delivered again.
 */
export const CHECKPOINT_EVERY_MS = 100;

/** How long a unit's checkpoint waits before it is written again after a failed write. */
export const CHECKPOINT_RETRY_MS = 1_000;

export interface CheckpointWriterOptions {
  /** The least milliseconds between two writes of one unit. @defaultValue CHECKPOINT_EVERY_MS */
  everyMs?: number;
  /** Milliseconds before a failed write is tried again (unless a newer checkpoint comes first). @defaultValue CHECKPOINT_RETRY_MS */
  retryMs?: number;
  logger?: Logger;
}

/** One unit's writes: the newest checkpoint not written yet, and the writing loop while it runs. */
interface UnitWrites {
  /** The newest checkpoint queued so far, written or not: a put it supersedes is dropped. */
  latest?: UnitCheckpoint;
  pending?: UnitCheckpoint;
  running?: Promise<void>;
  /** Ends the wait between two writes at once. */
  hurry?: () => void;
  /** Set by a flush: the writing loop no longer waits between writes, until it ends. */
  flushing?: boolean;
  retry?: ReturnType<typeof setTimeout>;
}

/**
 * Writes units' checkpoints to the coordinator behind the scheduler's loop:
 * `put` returns at once, one write per unit is in flight at a time, and the
 * checkpoints recorded meanwhile collapse into the newest one, written next
 * (at most every `everyMs`). Each write is still the coordinator's
 * monotonic compare-and-set (putCheckpoint): a checkpoint of an older epoch,
 * or behind the stored one, changes nothing, so fencing is the
 * coordinator's as before. A failed write is logged and tried again after
 * `retryMs`, or with the next checkpoint of the unit; a closed coordinator
 * (the process stopping) ends the unit's writes.
 *
 * What a write behind the loop changes: the coordinator's checkpoint may
 * trail the owner's memory by the write in flight and `everyMs`. An owner
 * that dies loses that much of its record, as it always lost the reports
 * still in its inbox; its successor resumes from the older checkpoint and
 * the executors report those batches again from their confirmed-batch logs
 * (executor.ts), with their counts, without delivering them again.
 */
export class CheckpointWriter {
  private readonly units = new Map<string, UnitWrites>();
  private readonly everyMs: number;
  private readonly retryMs: number;
  private readonly logger: Logger;

  constructor(
    private readonly coordinator: Pick<Coordinator, 'putCheckpoint'>,
    options: CheckpointWriterOptions = {},
  ) {
    this.everyMs = options.everyMs ?? CHECKPOINT_EVERY_MS;
    this.retryMs = options.retryMs ?? CHECKPOINT_RETRY_MS;
    this.logger = options.logger ?? noopLogger;
  }

  /** Queues a unit's checkpoint; one that does not supersede the last one queued (older epoch, or not further) is dropped. */
  put(checkpoint: UnitCheckpoint): void {
    const key = keyOf(checkpoint.taskId, checkpoint.unitNo);
    const unit = this.units.get(key) ?? {};
    this.units.set(key, unit);
    if (unit.latest !== undefined && !supersedes(checkpoint, unit.latest)) return;
    unit.latest = checkpoint;
    unit.pending = checkpoint;
    this.start(key, unit);
  }

  /**
   * Resolves once the unit's newest queued checkpoint was written, or its
   * write failed (the retry then comes later); at once when none is queued.
   * Skips the wait between writes.
   */
  async flush(taskId: number, unitNo: number): Promise<void> {
    const unit = this.units.get(keyOf(taskId, unitNo));
    if (unit === undefined) return;
    if (unit.retry !== undefined) this.start(keyOf(taskId, unitNo), unit);
    unit.flushing = true;
    unit.hurry?.();
    await unit.running;
  }

  /** Units with a checkpoint queued or being written. */
  get size(): number {
    return this.units.size;
  }

  private start(key: string, unit: UnitWrites): void {
    clearTimeout(unit.retry);
    unit.retry = undefined;
    unit.running ??= this.drain(key, unit).finally(() => {
      unit.running = undefined;
      unit.hurry = undefined;
      unit.flushing = false;
      if (unit.pending === undefined && unit.retry === undefined && this.units.get(key) === unit)
        this.units.delete(key);
    });
  }

  /** Writes the unit's newest checkpoint until none is queued, each write at least everyMs after the one before. */
  private async drain(key: string, unit: UnitWrites): Promise<void> {
    while (unit.pending !== undefined) {
      const next = unit.pending;
      unit.pending = undefined;
      const started = performance.now();
      try {
        await this.coordinator.putCheckpoint(next);
      } catch (error) {
        // Closed: this process is stopping, and its units were settled into the store or are left to their next owner.
        if (isHeraldError(error) && error.code === ErrorCodes.STORE_CLOSED) {
          unit.pending = undefined;
          return;
        }
        this.logger.warn('checkpoint not written to the coordinator; tried again', {
          taskId: next.taskId,
          unitNo: next.unitNo,
          checkpoint: next.checkpoint,
          error: String(error),
        });
        // A newer checkpoint queued during the failed write is written next, at once; else this one, later.
        if (unit.pending !== undefined) continue;
        unit.pending = next;
        unit.retry = setTimeout(() => this.start(key, unit), this.retryMs);
        unit.retry.unref?.();
        return;
      }
      // Waited out even with nothing queued: a checkpoint coming meanwhile is written at the end of it.
      const wait = this.everyMs - (performance.now() - started);
      if (wait > 0 && unit.flushing !== true)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          timer.unref?.();
          unit.hurry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      unit.hurry = undefined;
    }
  }
}

function keyOf(taskId: number, unitNo: number): string {
  return `${taskId}/${unitNo}`;
}
