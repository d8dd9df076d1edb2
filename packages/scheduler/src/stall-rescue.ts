import type { ExecutionUnit, Task } from '@herald/core/task';
import type { SchedulerContext } from './context';

/** What the stall rescue needs from the unit driver (wired by scheduler.ts). */
export interface StallRescueNeeds {
  requestPreprocess(task: Task): Promise<void>;
  sendRun(task: Task, unit: ExecutionUnit): Promise<void>;
}

/**
 * Runs again what stopped moving, on every tick: a unit of a sending task
 * whose checkpoint has not moved for scheduler.unitStallMs (ten such periods
 * while its executor moves the task's other units: stall-watch.ts says why,
 * and why a re-run is safe), and a pre-processing with no result for four
 * such periods.
 *
 * Pre-processing has no progress reports: a result lost with a dispatcher
 * that died mid-way (or with its queue) would leave the task PREPROCESSING,
 * holding its slot, for good. A long list's filter pass can take longer than
 * one unit's stall period, hence four. Asking again is safe: a dispatcher
 * pre-processes a task once and answers a repeated request with the recorded
 * result, never writing a second filtered list under units that may already
 * stream from the first (dispatcher/preprocess-outcome.ts), and a result of an
 * old epoch or a finished step is ignored.
 *
 * A unit's executor may be gone for good: the unit.run goes out naming it all
 * the same, and a dispatcher that hears no load report from it answers with
 * a live executor (unit.replan), which the unit driver stores and runs the
 * unit on (docs/operations.md, "An executor lost"). The choice stays with the
 * dispatcher: it holds the load reports.
 *
 * No progress may also mean another scheduler took the task (this one was cut
 * off meanwhile), so before sending anything again under its epoch the store
 * is asked, and a task with a newer epoch is dropped.
 */
export interface StallRescue {
  rerunStalled(now: number): Promise<void>;
}

export function createStallRescue(ctx: SchedulerContext, needs: StallRescueNeeds): StallRescue {
  const { config, store, logger, tasks } = ctx;
  const preprocessRetries = ctx.meter.counter(
    'herald_scheduler_preprocess_retries_total',
    'Pre-processing requests sent again after no result for 4 x scheduler.unitStallMs',
  );
  const stalledUnits = ctx.meter.counter(
    'herald_scheduler_stalled_units_total',
    'Units run again from their checkpoint after no progress for scheduler.unitStallMs',
  );

  /** True when the store still names this scheduler's epoch; otherwise the task is dropped. */
  async function stillOwned(task: Task): Promise<boolean> {
    const stored = await store.getTask(task.id);
    if (stored !== undefined && stored.epoch === task.epoch) return true;
    logger.warn('lost ownership of a task; dropping it', {
      taskId: task.id,
      epoch: task.epoch,
      current: stored?.epoch,
      owner: stored?.owner,
    });
    tasks.forget(task.id);
    return false;
  }

  async function rerunPreprocessing(now: number): Promise<void> {
    for (const entry of tasks.all()) {
      const task = entry.task;
      if (task.state !== 'PREPROCESSING' || !entry.preprocessStall.isStalled(task.id, -1, task.epoch, now)) continue;
      if (!(await stillOwned(task))) continue;
      preprocessRetries.inc();
      logger.warn('pre-processing gave no result; asking again', {
        taskId: task.id,
        epoch: task.epoch,
        stallMs: config.scheduler.unitStallMs * 4,
      });
      await needs.requestPreprocess(task);
    }
  }

  async function rerunUnits(now: number): Promise<void> {
    for (const entry of tasks.all()) {
      const task = entry.task;
      if (entry.units === undefined || task.state !== 'SENDING') continue;
      const running = entry.units.filter((unit) => unit.state === 'ASSIGNED' || unit.state === 'RUNNING');
      // Every unit's move noted first: whether a unit's executor moves others does not depend on their order.
      for (const unit of running) entry.unitStalls.observe(task.id, unit.unitNo, unit.checkpoint, now, unit.executorId);
      for (const unit of running) {
        if (!entry.unitStalls.isStalled(task.id, unit.unitNo, unit.checkpoint, now, unit.executorId)) continue;
        if (!(await stillOwned(task))) break;
        stalledUnits.inc();
        logger.warn('unit made no progress; running it again from its checkpoint', {
          taskId: task.id,
          unitNo: unit.unitNo,
          checkpoint: unit.checkpoint,
          executorId: unit.executorId,
          stallMs: config.scheduler.unitStallMs,
        });
        await needs.sendRun(task, unit);
      }
    }
  }

  return {
    async rerunStalled(now) {
      await rerunPreprocessing(now);
      await rerunUnits(now);
    },
  };
}
