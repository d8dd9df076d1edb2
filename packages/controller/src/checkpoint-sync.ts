import { FencedError } from '@herald/core';
import type { Coordinator, Logger, TaskStore } from '@herald/core/ports';

export interface SyncResult {
  applied: number;
  stale: number;
}

/**
 * Moves confirmed unit checkpoints from the coordinator (ZooKeeper in
 * production, where schedulers write them on every confirmed batch) into the
 * task store (seed 002, Q17). Each checkpoint is applied with the epoch of the
 * scheduler that confirmed it, so a checkpoint from a deposed owner is fenced
 * out; then it is removed from the coordinator only if it was not rewritten
 * meanwhile (version check), so newer progress is never dropped.
 */
export async function syncCheckpoints(
  coordinator: Coordinator,
  store: TaskStore,
  now: number,
  logger: Logger,
): Promise<SyncResult> {
  const result = { applied: 0, stale: 0 };
  const unitsByTask = new Map<number, Awaited<ReturnType<TaskStore['listUnits']>>>();
  for (const checkpoint of await coordinator.listCheckpoints()) {
    let units = unitsByTask.get(checkpoint.taskId);
    if (units === undefined) {
      units = await store.listUnits(checkpoint.taskId);
      unitsByTask.set(checkpoint.taskId, units);
    }
    const unit = units.find((u) => u.unitNo === checkpoint.unitNo);
    if (unit === undefined) {
      logger.warn('checkpoint names an unknown unit; dropping it', {
        taskId: checkpoint.taskId,
        unitNo: checkpoint.unitNo,
      });
      await coordinator.removeCheckpoint(checkpoint.taskId, checkpoint.unitNo, checkpoint.version);
      result.stale++;
      continue;
    }
    if (checkpoint.checkpoint > unit.checkpoint) {
      try {
        await store.checkpointUnit(
          checkpoint.taskId,
          checkpoint.unitNo,
          { epoch: checkpoint.epoch },
          {
            from: unit.checkpoint,
            to: checkpoint.checkpoint,
            delivered: checkpoint.delivered - unit.delivered,
            offline: checkpoint.offline - unit.offline,
          },
          now,
        );
        result.applied++;
      } catch (error) {
        if (!(error instanceof FencedError)) throw error;
        result.stale++;
      }
    } else result.stale++;
    await coordinator.removeCheckpoint(checkpoint.taskId, checkpoint.unitNo, checkpoint.version);
  }
  return result;
}
