#!/usr/bin/env node
/**
 * Preemption latency on the embedded profile: with one executor slot taken by
 * a sending 10^7-recipient normal task, how long from creating a small
 * real-time task to its first delivery, and how much of the normal task's
 * work is delivered meanwhile? The scheduler preempts the normal task at its
 * checkpoints (docs/scheduling.md, "The bound").
 *
 * Create -> first delivery is measured as bench/latency.js does: from sending
 * the create request over the HTTP API to the first batch of the task reaching
 * the delivery gateway. A real-time task is created only while the normal task
 * is SENDING at full speed (at least 2 x highWaterMark of its batches delivered
 * since it last started or resumed), so the executor's inbox is full of its
 * batches: the worst case. A sample counts only if the normal task was
 * actually preempted for it; when the normal task finishes, another starts.
 *
 * The timeline of each sample comes from the tiers' own debug logs (a logger
 * that keeps the moments it needs and passes warnings on): the real-time
 * task's transitions (queued, admitted, pre-processed, sending), the normal
 * task's `preempt` transition (the scheduler's halt went out just before that
 * store write) and the executor reading the halt. At each, the normal task's
 * batches delivered so far are noted, so the table says where they went:
 * before the preemption (the normal task still held its slot) or after it
 * (work in flight when it was halted: the bound is one batch, the one in
 * hand, per executor).
 *
 *   node bench/preemption.js [--samples 10] [--recipients 10000000] [--online 0.3]
 *
 * Three unmeasured real-time tasks warm the cluster up first. Prints a table;
 * nothing is written to RESULTS.md.
 */
const { mkdtemp, rm } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { encodeRecipientList } = require('@herald/core/recipient-list');
const { FileDeliverySink } = require('@herald/executor');
const { startEmbeddedCluster } = require('@herald/embedded');
const { authHeaders, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');
const { percentiles, machine, commit, arg } = require('./lib');

const URGENT_RECIPIENTS = 1000;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A gateway that remembers, per task, when its first batch arrived and how many batches arrived. */
function countingGateway(inner) {
  const first = new Map();
  const batches = new Map();
  const waiters = new Map();
  return {
    first,
    batches,
    /** Resolves with the time of the task's first delivery. */
    firstOf(taskId) {
      if (first.has(taskId)) return Promise.resolve(first.get(taskId));
      return new Promise((resolve) => waiters.set(taskId, resolve));
    },
    deliver: async (delivery) => {
      const now = performance.now();
      if (!first.has(delivery.taskId)) {
        first.set(delivery.taskId, now);
        waiters.get(delivery.taskId)?.(now);
        waiters.delete(delivery.taskId);
      }
      batches.set(delivery.taskId, (batches.get(delivery.taskId) ?? 0) + 1);
      await inner.deliver(delivery);
    },
    close: () => inner.close(),
  };
}

/**
 * A logger that keeps, per task, the first moment of each event it is asked
 * to watch (a scheduler transition, the executor reading a halt), with the
 * count `mark()` gives then; warnings and errors go to stderr.
 */
function timelineLogger(mark) {
  const events = new Map(); // taskId -> Map(name -> { at, mark })
  const note = (taskId, name) => {
    let task = events.get(taskId);
    if (task === undefined) events.set(taskId, (task = new Map()));
    if (!task.has(name)) task.set(name, { at: performance.now(), mark: mark() });
  };
  const loud = (level) => (message, fields) =>
    process.stderr.write(`${level}: ${message} ${JSON.stringify(fields ?? {})}\n`);
  return {
    events,
    debug(message, fields) {
      if (message === 'task transition') note(fields.taskId, fields.event);
      else if (message === 'task halt read: its batches not yet started are dropped') note(fields.taskId, 'halt read');
    },
    info() {},
    warn: loud('warn'),
    error: loud('error'),
  };
}

async function main() {
  const samples = Number(arg('--samples', 10));
  const recipients = Number(arg('--recipients', 10_000_000));
  const onlineShare = Number(arg('--online', 0.3));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-preemption-'));
  const gateway = countingGateway(new FileDeliverySink(path.join(dir, 'deliveries')));
  let normal;
  const logger = timelineLogger(() => (normal === undefined ? 0 : (gateway.batches.get(normal.id) ?? 0)));
  const cluster = await startEmbeddedCluster(
    {
      dataDir: path.join(dir, 'data'),
      http: { port: 0 },
      uinSpaceBits: 25,
      scheduler: { slots: 1 },
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
      tasks: TEST_TASK_OPTIONS,
    },
    { gateway, logger },
  );
  const { batchSize } = cluster.config.dispatcher;
  const hwm = cluster.config.transport.highWaterMark;
  const post = async (url, body, type = 'application/json') =>
    (
      await fetch(`${cluster.url}${url}`, { method: 'POST', headers: { 'content-type': type, ...authHeaders() }, body })
    ).json();
  const stateOf = async (id) => (await cluster.store.getTask(id)).state;
  const preemptions = async () =>
    Number(/^herald_scheduler_preemptions_total (\d+)$/m.exec((await cluster.meter.exposition()).body)?.[1] ?? 0);

  try {
    // The normal audience: uins 0..n-1, a share of them online (spread evenly). The urgent one: all online, above it.
    const every = Math.max(1, Math.round(1 / onlineShare));
    for (let uin = 0; uin < recipients; uin += every) cluster.online.setOnline(uin, true);
    const urgentBase = recipients + 1_000;
    for (let uin = urgentBase; uin < urgentBase + URGENT_RECIPIENTS; uin++) cluster.online.setOnline(uin, true);
    process.stderr.write(`uploading a ${recipients.toLocaleString('en-US')}-recipient list ...\n`);
    const normalList = await post(
      '/api/v1/lists?accountId=bench',
      encodeRecipientList(Uint32Array.from({ length: recipients }, (_, i) => i)),
      'application/octet-stream',
    );
    const urgentList = await post(
      '/api/v1/lists?accountId=bench',
      encodeRecipientList(Uint32Array.from({ length: URGENT_RECIPIENTS }, (_, i) => urgentBase + i)),
      'application/octet-stream',
    );
    let created = 0;
    // confirm: a list over accounts.defaultLimits.confirmAbove needs its count repeated (docs/account-quotas.md).
    const createTask = (list, priority) =>
      post(
        '/api/v1/tasks',
        JSON.stringify({
          accountId: 'bench',
          listId: list.id,
          content: { body: `${priority} ${created++}` },
          priority,
          confirm: list.count,
        }),
      );

    /** Per phase boundary: ms since the create (idle and busy), and normal batches delivered since the create. */
    const phases = new Map();
    const PHASES = [
      ['real-time task queued (scheduler took the submission)', 'urgent', 'enqueue'],
      ['normal task preempted (halt sent, PREEMPTED written)', 'normal', 'preempt'],
      ['executor read the halt', 'normal', 'halt read'],
      ['real-time task admitted (PREPROCESSING)', 'urgent', 'admit'],
      ['real-time task pre-processed (DISPATCHING)', 'urgent', 'preprocessed'],
      ['real-time task SENDING (unit.run sent)', 'urgent', 'dispatched'],
    ];
    for (const [label] of PHASES) phases.set(label, { idleMs: [], ms: [], batches: [] });
    /** Notes when each phase of a sample was reached (idle: no normal task, so no batches). */
    function notePhases(ofTask, started, normalBatches, idle) {
      for (const [label, who, name] of PHASES) {
        const event = ofTask[who]?.get(name);
        if (event === undefined) continue;
        if (idle) phases.get(label).idleMs.push(event.at - started);
        else {
          phases.get(label).ms.push(event.at - started);
          phases.get(label).batches.push(event.mark - normalBatches);
        }
      }
    }

    /** Creates a real-time task and waits for it to complete; returns its create -> first delivery in ms. */
    async function urgentLatency(record) {
      const started = performance.now();
      const task = await createTask(urgentList, 'realtime');
      const first = await gateway.firstOf(task.id);
      while ((await stateOf(task.id)) !== 'COMPLETED') await pause(5);
      if (record) notePhases({ urgent: logger.events.get(task.id) ?? new Map() }, started, 0, true);
      return { task, ms: first - started };
    }

    // 1. Nothing else running, after a few unmeasured tasks (JIT, first LevelDB writes).
    process.stderr.write('real-time tasks on an idle cluster ...\n');
    for (let i = 0; i < 3; i++) await urgentLatency(false);
    const idle = [];
    for (let i = 0; i < samples; i++) idle.push((await urgentLatency(true)).ms);

    // 2. A 10^7 normal task holding the only slot.
    process.stderr.write('real-time tasks preempting a sending normal task ...\n');
    const busy = [];
    const ahead = [];
    const afterPreempt = [];
    const afterHaltRead = [];
    const batchIntervals = [];
    let normals = 0;
    while (busy.length < samples) {
      if (normal === undefined || (await stateOf(normal.id)) === 'COMPLETED') {
        normal = await createTask(normalList, 'normal');
        normals++;
        process.stderr.write(`  normal task ${normal.id} (${recipients.toLocaleString('en-US')} recipients) ...\n`);
      }
      while ((await stateOf(normal.id)) !== 'SENDING') await pause(5);
      // Full speed: 2 x high-water mark of its batches delivered since it (re)started, timed for the batch interval.
      const from = gateway.batches.get(normal.id) ?? 0;
      const t0 = performance.now();
      while ((gateway.batches.get(normal.id) ?? 0) < from + 2 * hwm && (await stateOf(normal.id)) === 'SENDING')
        await pause(2);
      if ((await stateOf(normal.id)) !== 'SENDING') continue; // finished meanwhile
      batchIntervals.push((performance.now() - t0) / ((gateway.batches.get(normal.id) ?? 0) - from));

      const before = await preemptions();
      logger.events.delete(normal.id); // this sample's preemption, not an earlier one
      const normalBatches = gateway.batches.get(normal.id) ?? 0;
      const started = performance.now();
      const task = await createTask(urgentList, 'realtime');
      const first = await gateway.firstOf(task.id);
      const aheadOfIt = (gateway.batches.get(normal.id) ?? 0) - normalBatches;
      while ((await stateOf(task.id)) !== 'COMPLETED') await pause(5);
      if ((await preemptions()) !== before + 1) continue; // the normal task was not SENDING when it was admitted
      busy.push(first - started);
      ahead.push(aheadOfIt);
      const ofTask = {
        urgent: logger.events.get(task.id) ?? new Map(),
        normal: logger.events.get(normal.id) ?? new Map(),
      };
      const preempted = ofTask.normal.get('preempt');
      if (preempted !== undefined) afterPreempt.push(normalBatches + aheadOfIt - preempted.mark);
      const haltRead = ofTask.normal.get('halt read');
      if (haltRead !== undefined) afterHaltRead.push(normalBatches + aheadOfIt - haltRead.mark);
      notePhases(ofTask, started, normalBatches, false);
      process.stderr.write(
        `  sample ${busy.length}: ${(first - started).toFixed(1)} ms, ${aheadOfIt} normal batches delivered before it` +
          `${preempted === undefined ? '' : `, ${normalBatches + aheadOfIt - preempted.mark} of them after the preemption`}\n`,
      );
    }

    const p = (values) => percentiles(values);
    const row = (label, values, digits = 1) =>
      `| ${label} | ${p(values).p50.toFixed(digits)} | ${p(values).p99.toFixed(digits)} | ${p(values).max.toFixed(digits)} |`;
    const interval = p(batchIntervals).p50;
    const table = [
      `### Preemption latency, embedded profile — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
      '',
      `Machine: ${machine()}; load average at the end ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(
          ' / ',
        )}. One executor slot (scheduler.slots 1). Real-time tasks of ${URGENT_RECIPIENTS.toLocaleString('en-US')} recipients, all online; the normal task ${recipients.toLocaleString('en-US')} recipients, ${onlineShare} online, ${normals} normal task(s) used. ${samples} samples each. Command: \`node bench/preemption.js --samples ${samples} --recipients ${recipients} --online ${onlineShare}\`.`,
      '',
      '| measure | p50 | p99 | max |',
      '|---|---:|---:|---:|',
      row('real-time create -> first delivery, idle cluster (ms)', idle),
      row('real-time create -> first delivery, preempting a sending normal task (ms)', busy),
      row('normal-task batches delivered between the real-time create and its first delivery', ahead, 0),
      ...(afterPreempt.length > 0
        ? [row("&nbsp;&nbsp;of which after the preemption (the scheduler's halt)", afterPreempt, 0)]
        : []),
      ...(afterHaltRead.length > 0
        ? [row('&nbsp;&nbsp;of which after the executor read the halt', afterHaltRead, 0)]
        : []),
      row(
        `normal-task batch (= checkpoint) interval at full speed (ms; ${batchSize} uins per batch)`,
        batchIntervals,
        2,
      ),
      '',
      'Where the time goes (p50 over the samples; normal batches counted from the real-time create):',
      '',
      '| moment | ms after the create, idle | ms after the create, preempting | normal batches delivered by then |',
      '|---|---:|---:|---:|',
      ...[...phases]
        .filter(([, { ms }]) => ms.length > 0)
        .map(
          ([label, { idleMs, ms, batches }]) =>
            `| ${label} | ${idleMs.length > 0 ? p(idleMs).p50.toFixed(1) : '-'} | ${p(ms).p50.toFixed(1)} | ${p(batches).p50} |`,
        ),
      `| real-time first delivery | ${p(idle).p50.toFixed(1)} | ${p(busy).p50.toFixed(1)} | ${p(ahead).p50} |`,
      '',
    ].join('\n');
    process.stdout.write(table + '\n');
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
