import { LATENCY_BUCKETS_SECONDS, type Meter } from '@herald/core/ports';

/** The dispatcher's metrics, registered once per dispatcher. */
export function dispatcherMetrics(meter: Meter) {
  const batchesSent = meter.counter('herald_dispatcher_batches_total', 'Recipient batches sent to executors');
  const recipientsSent = meter.counter('herald_dispatcher_recipients_total', 'Recipients sent to executors');
  const staleRuns = meter.counter(
    'herald_dispatcher_stale_runs_total',
    'unit.run messages dropped: their epoch is below one seen for the task (a deposed owner)',
  );
  const superseded = meter.counter(
    'herald_dispatcher_superseded_streams_total',
    'Unit streams stopped by a unit.run of a newer owner epoch',
  );
  const preprocessed = meter.counter(
    'herald_dispatcher_preprocessed_recipients_total',
    'Recipients pre-processed (read from the uploaded lists, before filtering)',
  );
  const filtered = meter.counter(
    'herald_dispatcher_filtered_recipients_total',
    'Recipients removed by the filter chain, by reason',
    ['reason'],
  );
  const preprocessSeconds = meter.histogram(
    'herald_dispatcher_preprocess_seconds',
    "One task's pre-processing: load, sort, filter, write the filtered list, plan units",
    [],
    LATENCY_BUCKETS_SECONDS,
  );
  const preprocessStageSeconds = meter.histogram(
    'herald_dispatcher_preprocess_stage_seconds',
    "Each stage of a task's pre-processing: load (read the list), filter (sort and the filter chain), plan (rollout, local-time groups, units), write (filtered list, removed sets, outcome, fsynced)",
    ['stage'],
    LATENCY_BUCKETS_SECONDS,
  );
  const errors = meter.counter(
    'herald_dispatcher_errors_total',
    'Pre-processings and unit streams that failed, by error code',
    ['code'],
  );
  const preprocessQueue = meter.gauge(
    'herald_dispatcher_preprocess_queue',
    'Pre-processing requests waiting or running (one runs at a time)',
  );
  const activeStreams = meter.gauge('herald_dispatcher_active_streams', 'Unit streams running');
  const forwardedHalts = meter.counter(
    'herald_dispatcher_forwarded_halts_total',
    "task.halt messages forwarded to an executor's real-time inbox, so it drops the halted batches still queued",
  );
  const loadReports = meter.counter(
    'herald_dispatcher_load_reports_total',
    'host.load reports received from executors',
  );
  const unitPlans = meter.counter(
    'herald_dispatcher_unit_plans_total',
    'Tasks whose units were planned, by why they went where they did (one-host, split, short, or a fallback)',
    ['reason'],
  );
  const replans = meter.counter(
    'herald_dispatcher_unit_replans_total',
    'unit.run messages not streamed: their executor stopped reporting its load, a live one was proposed to the scheduler (unit.replan)',
    ['reason'],
  );
  return {
    batchesSent,
    recipientsSent,
    staleRuns,
    superseded,
    preprocessed,
    filtered,
    preprocessSeconds,
    preprocessStageSeconds,
    errors,
    preprocessQueue,
    activeStreams,
    forwardedHalts,
    loadReports,
    unitPlans,
    replans,
  };
}

export type DispatcherMetrics = ReturnType<typeof dispatcherMetrics>;
