import { FencedError, isHeraldError } from '@herald/core';
import type { Logger } from '@herald/core/ports';
import type { SchedulerMetrics } from './scheduler-metrics';
import { SerialQueue } from './serial';
import type { TaskTable } from './task-table';

/** How often the scheduler's gauges are set, at most: each counts every unit it holds. */
const STATS_EVERY_MS = 250;
/** A job slower than this is logged: every message queued behind it waited as long. */
export const SLOW_JOB_MS = 100;

/**
 * The scheduler's one loop: every message, tick and sweep runs as a job in
 * one SerialQueue, so two writes for one task never race and the in-memory
 * table always matches the store. A job that fails never stops the loop: a
 * FENCED answer drops the task it was for (a newer owner exists), any other
 * error is counted and logged. After each job the gauges are set (at most
 * every STATS_EVERY_MS).
 */
export class JobLoop {
  readonly serial = new SerialQueue();
  private statsAt = -Infinity;

  constructor(
    private readonly tasks: TaskTable,
    private readonly metrics: SchedulerMetrics,
    private readonly logger: Logger,
  ) {}

  /** Queues a job behind every job queued before it; resolves when it has run (never rejects). */
  run(taskId: number | undefined, job: () => Promise<void>, what?: string): Promise<void> {
    return this.serial.run(() => this.safely(taskId, job, what));
  }

  /** Runs a job now (inside a job already running): a FENCED answer drops the task, any other error is logged. */
  async safely(taskId: number | undefined, job: () => Promise<void>, what = 'tick'): Promise<void> {
    const started = performance.now();
    try {
      await job();
      const ms = performance.now() - started;
      // Jobs run one at a time, so a slow one delays every message behind it: say so.
      if (ms > SLOW_JOB_MS) this.logger.warn('slow scheduler job', { what, taskId, ms: Math.round(ms) });
    } catch (error) {
      this.metrics.failed(error);
      if (error instanceof FencedError && taskId !== undefined) {
        this.logger.warn('lost ownership of a task; dropping it', { taskId });
        this.tasks.forget(taskId);
      } else
        this.logger.error('scheduler job failed', {
          taskId,
          error: String(error),
          code: isHeraldError(error) ? error.code : undefined,
        });
    } finally {
      this.publishStats();
    }
  }

  /** Sets the gauges, at most every STATS_EVERY_MS (a tick comes at least every scheduler.tickMs). */
  private publishStats(): void {
    const now = performance.now();
    if (now - this.statsAt < STATS_EVERY_MS) return;
    this.statsAt = now;
    const unitsByExecutor = new Map<string, number>();
    for (const { units } of this.tasks.all()) {
      for (const unit of units ?? [])
        if (unit.state === 'ASSIGNED' || unit.state === 'RUNNING')
          unitsByExecutor.set(unit.executorId, (unitsByExecutor.get(unit.executorId) ?? 0) + 1);
    }
    const { tasks } = this;
    this.metrics.publish({
      queued: tasks.queued,
      active: tasks.active,
      scheduled: tasks.scheduled,
      owned: tasks.size,
      pendingJobs: Math.max(0, this.serial.pending - 1),
      unitsByExecutor,
    });
  }
}
