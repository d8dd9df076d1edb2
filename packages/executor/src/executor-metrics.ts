import type { Meter } from '@herald/core/ports';

/** The executor's metrics, registered once per executor; each labelled by executor id. */
export function executorMetrics(meter: Meter) {
  const delivered = meter.counter('herald_executor_delivered_total', 'Recipients pushed to online users', ['executor']);
  const queued = meter.counter('herald_executor_offline_total', 'Recipients appended to offline lists', ['executor']);
  const dropped = meter.counter('herald_executor_dropped_batches_total', 'Batches dropped (unknown task)', [
    'executor',
  ]);
  const stale = meter.counter(
    'herald_executor_stale_batches_total',
    'Batches dropped: their epoch is below one seen for the task (a deposed owner)',
    ['executor'],
  );
  const halted = meter.counter(
    'herald_executor_halted_batches_total',
    'Batches dropped unstarted: their task was halted under their epoch (preempted, paused, cancelled, expired)',
    ['executor'],
  );
  const busy = meter.counter(
    'herald_executor_busy_seconds_total',
    "Time spent handling batches (its rate is the executor's load, 0..1)",
    ['executor'],
  );
  const errors = meter.counter(
    'herald_executor_errors_total',
    'Batches not confirmed and login walks that failed, by error code',
    ['executor', 'code'],
  );
  const prefetched = meter.gauge(
    'herald_executor_prefetched_batches',
    'Batches read from the inboxes waiting for the worker (both lanes)',
    ['executor'],
  );
  const pacedRecipients = meter.counter(
    'herald_executor_paced_recipients_total',
    "Recipients sent at their task's speed: each batch's taken from the task's token bucket first",
    ['executor'],
  );
  const quietHeld = meter.counter(
    'herald_executor_quiet_held_recipients_total',
    "Recipients not sent at the moment of sending: inside their task's quiet hours (during 'hold'), held until their end",
    ['executor'],
  );
  return { delivered, queued, dropped, stale, halted, busy, errors, prefetched, pacedRecipients, quietHeld };
}

export type ExecutorMetrics = ReturnType<typeof executorMetrics>;
