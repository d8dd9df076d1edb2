import { isHeraldError } from '@herald/core';
import { LATENCY_BUCKETS_SECONDS, type Meter } from '@herald/core/ports';
import type { Task } from '@herald/core/task';

/** What a scheduler holds at one moment, for its gauges. */
export interface SchedulerView {
  /** Tasks in the ready queue, waiting for a slot. */
  queued: number;
  /** Tasks holding an executor slot. */
  active: number;
  /** Tasks waiting for their send time. */
  scheduled: number;
  owned: number;
  /** Jobs (messages read from the inboxes, ticks, sweeps) waiting behind the one running. */
  pendingJobs: number;
  /** Units assigned or running, by executor: the load this scheduler puts on each. */
  unitsByExecutor: ReadonlyMap<string, number>;
}

export interface SchedulerMetrics {
  /** A task's first confirmed batch (delivered or queued offline). */
  firstDelivery(task: Task, now: number): void;
  completed(task: Task, now: number): void;
  /** A job that failed; counted by its error code (INTERNAL for anything that is not a HeraldError). */
  failed(error: unknown): void;
  publish(view: SchedulerView): void;
}

/**
 * The scheduler's metrics beyond its counters of events. Latencies run from
 * when the task was ready to send: its creation, or its send time when it was
 * scheduled ahead (else every scheduled task would report its wait).
 */
export function schedulerMetrics(meter: Meter): SchedulerMetrics {
  const first = meter.histogram(
    'herald_task_first_delivery_seconds',
    'From a task being ready to send (created, or its send time) to its first confirmed batch',
    ['priority'],
    LATENCY_BUCKETS_SECONDS,
  );
  const done = meter.histogram(
    'herald_task_completion_seconds',
    'From a task being ready to send (created, or its send time) to COMPLETED',
    ['priority'],
    LATENCY_BUCKETS_SECONDS,
  );
  const errors = meter.counter(
    'herald_scheduler_errors_total',
    'Scheduler jobs that failed, by error code (FENCED: a task lost to a newer owner)',
    ['code'],
  );
  const queued = meter.gauge('herald_scheduler_queued_tasks', 'Tasks in the ready queue, waiting for an executor slot');
  const active = meter.gauge(
    'herald_scheduler_active_tasks',
    'Tasks holding an executor slot (at most scheduler.slots)',
  );
  const scheduled = meter.gauge('herald_scheduler_scheduled_tasks', 'Tasks waiting for their send time');
  const owned = meter.gauge('herald_scheduler_owned_tasks', 'Live tasks this scheduler owns');
  const pending = meter.gauge(
    'herald_scheduler_pending_jobs',
    'Messages and timer jobs waiting behind the one being handled (the queue behind the inboxes)',
  );
  const units = meter.gauge('herald_scheduler_running_units', 'Units assigned or running, by executor', ['executor']);
  const executorsSeen = new Set<string>();
  const seconds = (task: Task, now: number) => Math.max(0, now - Math.max(task.createdAt, task.sendAt)) / 1000;
  return {
    firstDelivery: (task, now) => first.observe(seconds(task, now), { priority: task.priority }),
    completed: (task, now) => done.observe(seconds(task, now), { priority: task.priority }),
    failed: (error) => errors.inc({ code: isHeraldError(error) ? error.code : 'INTERNAL' }),
    publish(view) {
      queued.set(view.queued);
      active.set(view.active);
      scheduled.set(view.scheduled);
      owned.set(view.owned);
      pending.set(view.pendingJobs);
      for (const id of view.unitsByExecutor.keys()) executorsSeen.add(id);
      // An executor with no unit left shows 0, not its last count.
      for (const id of executorsSeen) units.set(view.unitsByExecutor.get(id) ?? 0, { executor: id });
    },
  };
}
