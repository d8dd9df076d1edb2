import { EpochFloor } from '@herald/core/task';
import type { Logger } from '@herald/core/ports';
import type { TaskHalt, UnitBatch } from '@herald/transport';

/** Tasks whose highest batch epoch is remembered; past it the least recently seen is forgotten. */
const EPOCH_MEMORY = 65_536;

/** What the fence counts when it drops a batch. */
export interface BatchFenceCounts {
  halted(): void;
  stale(): void;
}

/**
 * The executor's epoch fences (docs/apta.md), per task: the highest owner
 * epoch seen in a batch (a batch below it is a deposed owner's), and the
 * highest epoch a halt closed (a batch at or below it is dropped unstarted).
 */
export class BatchFence {
  /** Per task, the highest owner epoch seen. */
  private readonly epochs = new EpochFloor(EPOCH_MEMORY);
  /** Per task, the highest epoch a halt closed: the task's batches at or below it are dropped unstarted. */
  private readonly closed = new EpochFloor(EPOCH_MEMORY);

  constructor(
    private readonly counts: BatchFenceCounts,
    private readonly logger: Logger,
  ) {}

  /** Remembers a halt that closes its epoch; any other halt changes nothing (the owner may still run units under it). */
  onHalt(halt: TaskHalt): void {
    if (halt.closesEpoch !== true) return;
    this.closed.raise(halt.taskId, halt.epoch);
    this.logger.debug('task halt read: its batches not yet started are dropped', {
      taskId: halt.taskId,
      epoch: halt.epoch,
    });
  }

  /** True (and counted) when the batch's task was halted under the batch's epoch. */
  isHalted(batch: UnitBatch): boolean {
    const upTo = this.closed.get(batch.taskId);
    if (upTo === undefined || batch.epoch > upTo) return false;
    this.counts.halted();
    return true;
  }

  /** The highest epoch known for the task, or undefined when none (or forgotten). */
  known(taskId: number): number | undefined {
    return this.epochs.get(taskId);
  }

  /** Raises the task's known epoch to at least `epoch`; returns the known epoch. */
  raise(taskId: number, epoch: number): number {
    return this.epochs.raise(taskId, epoch);
  }

  /** True (and counted) when the batch's epoch is below `known`, the highest known for its task. */
  isStale(batch: UnitBatch, known: number): boolean {
    if (batch.epoch >= known) return false;
    this.counts.stale();
    this.logger.warn('batch of a deposed owner dropped', {
      taskId: batch.taskId,
      unitNo: batch.unitNo,
      offset: batch.offset,
      epoch: batch.epoch,
      current: known,
    });
    return true;
  }
}
