import { HeraldError } from '@herald/core';
import type { Coordinator, TaskStore, UnitProgress } from '@herald/core/ports';
import type { ExecutionUnit, Task } from '@herald/core/task';

/**
 * Where a scheduler records each confirmed batch of a unit.
 *
 * - `storeRecorder`: straight into the task store (embedded profile: a
 *   LevelDB write is cheap).
 * - `coordinatorRecorder`: into the coordinator first (production: a
 *   ZooKeeper write per batch), the controller moving confirmed checkpoints
 *   into MySQL later (seed 002, Q17); the scheduler settles a unit into the
 *   store itself before it finishes, stops or hands it over, so the store is
 *   current at every state change.
 */
export interface ProgressRecorder {
  /**
   * Records a confirmed batch and returns the unit as it now stands. A batch
   * whose `from` is not the unit's checkpoint (a replay) changes nothing.
   */
  record(task: Task, unit: ExecutionUnit, progress: UnitProgress, now: number): Promise<ExecutionUnit>;
  /** Writes the unit's recorded progress into the store, if the store is behind. */
  settle(task: Task, unit: ExecutionUnit, now: number): Promise<ExecutionUnit>;
  /** The furthest recorded progress of a unit read from the store: the resume point. */
  latest(task: Task, unit: ExecutionUnit): Promise<ExecutionUnit>;
}

export function storeRecorder(store: TaskStore): ProgressRecorder {
  return {
    record: (task, unit, progress, now) =>
      store.checkpointUnit(task.id, unit.unitNo, { epoch: task.epoch }, progress, now),
    settle: async (_task, unit) => unit,
    latest: async (_task, unit) => unit,
  };
}

export function coordinatorRecorder(store: TaskStore, coordinator: Coordinator): ProgressRecorder {
  return {
    async record(task, unit, progress, now) {
      if (progress.from !== unit.checkpoint || progress.to <= progress.from || progress.to > unit.end) return unit;
      const next = {
        ...unit,
        checkpoint: progress.to,
        delivered: unit.delivered + progress.delivered,
        offline: unit.offline + progress.offline,
        updatedAt: now,
      };
      await coordinator.putCheckpoint({
        taskId: task.id,
        unitNo: unit.unitNo,
        epoch: task.epoch,
        checkpoint: next.checkpoint,
        delivered: next.delivered,
        offline: next.offline,
        at: now,
      });
      return next;
    },
    async settle(task, unit, now) {
      // The controller may move the same unit's checkpoint forward between our read and our
      // write (its sync runs concurrently); the store then ignores our progress as out of
      // order. Read again and retry until the store has at least what we know.
      for (let attempt = 0; attempt < 10; attempt++) {
        const stored = (await store.listUnits(task.id)).find((u) => u.unitNo === unit.unitNo);
        if (stored === undefined || unit.checkpoint <= stored.checkpoint) return stored ?? unit;
        const written = await store.checkpointUnit(
          task.id,
          unit.unitNo,
          { epoch: task.epoch },
          {
            from: stored.checkpoint,
            to: unit.checkpoint,
            delivered: unit.delivered - stored.delivered,
            offline: unit.offline - stored.offline,
          },
          now,
        );
        if (written.checkpoint >= unit.checkpoint) return written;
      }
      throw new HeraldError(
        'VERSION_CONFLICT',
        `unit ${task.id}/${unit.unitNo}: could not settle checkpoint ${unit.checkpoint} into the store`,
        { retriable: true },
      );
    },
    async latest(task, unit) {
      const checkpoint = await coordinator.getCheckpoint(task.id, unit.unitNo);
      if (checkpoint === undefined || checkpoint.checkpoint <= unit.checkpoint) return unit;
      return {
        ...unit,
        checkpoint: checkpoint.checkpoint,
        delivered: checkpoint.delivered,
        offline: checkpoint.offline,
      };
    },
  };
}

/** A unit as the store returned it after a state change, with progress the store has not seen yet kept. */
export function withProgress(stored: ExecutionUnit, known: ExecutionUnit): ExecutionUnit {
  return known.checkpoint > stored.checkpoint
    ? { ...stored, checkpoint: known.checkpoint, delivered: known.delivered, offline: known.offline }
    : stored;
}
