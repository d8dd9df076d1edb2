#!/usr/bin/env node
/**
 * The production profile on this host: every tier its own process (1
 * interface, 2 schedulers, 1 dispatcher, 1 presence agent, 2 executors, 1
 * controller), MariaDB,
 * a standalone ZooKeeper and librdkafka's mock Kafka cluster, CURVE on every
 * link. Measures
 *   - one broadcast's fan-out rate end to end (task creation to COMPLETED);
 *   - task create -> first delivery latency over small tasks created one after
 *     another (first delivery = the first batch on the reports topic, stamped
 *     by the executor when the batch was delivered), for the first tasks after
 *     start (cold) and again right after the fan-out (warm), with where the
 *     time goes (the task's state-change times from the outbox).
 * With --record the table is appended to RESULTS.md. With --breakdown every
 * process runs under `--cpu-prof` and the run is cut into stages (the cold
 * latency run, the uploads, the fan-out's pre-processing and sending, the warm
 * latency run): CPU, GC, event-loop delay, bytes written and queue gauges per
 * stage and process, and the JS time by component and function
 * (bench/breakdown.js).
 *
 *   node bench/production.js [--recipients 1000000] [--tasks 100] [--poll-ms 250] [--batch-size N] [--record] [--logs] [--breakdown]
 *
 * --batch-size sets dispatcher.batchSize (default: the configuration's default), to
 * measure what a batch costs (docs/capacity.md, "Batch size").
 *
 * The fan-out is timed from the create request to the task's COMPLETED time (its
 * updatedAt); its state is read every 20 ms until it sends, then every
 * --poll-ms, so the bench's reads do not take the cores it measures.
 *
 * bench/suite.js calls runProduction directly; it also reads each process's
 * peak resident set (VmHWM in /proc/<pid>/status) just before they stop.
 */
const { randomBytes } = require('node:crypto');
const { appendFile } = require('node:fs/promises');
const path = require('node:path');
const { DEFAULTS } = require('@herald/core/config');
const { encodeRecipientList } = require('@herald/core/recipient-list');
const { TOPICS } = require('@herald/core/ports');
const { syntheticAudience } = require('@herald/audience');
const { SharedOnlineBitmap } = require('@herald/shared-bitmap');
const {
  authHeaders,
  makeTempDir,
  ProcessCluster,
  TestZooKeeper,
  TestKafka,
  ensureSharedMariaDb,
} = require('@herald/testing');
const { percentiles, machine, commit, arg, residentSampler, loadAverage, fmt } = require('./lib');
const breakdown = require('./breakdown');

const DONE = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];
/** How often the fan-out's state is read while it sends (--poll-ms). */
const SENDING_POLL_MS = Number(arg('--poll-ms', 250));
/** dispatcher.batchSize (--batch-size); undefined: the configuration's default. */
const batchSizeArg = arg('--batch-size');
const BATCH_SIZE = batchSizeArg === undefined ? undefined : Number(batchSizeArg);

const begun = performance.now();
/** Progress on stderr, so a long run shows where it is. */
const step = (what) => process.stderr.write(`[${((performance.now() - begun) / 1000).toFixed(1)} s] ${what}\n`);

/**
 * Starts the production profile, runs the latency runs and the fan-out, and
 * returns their figures, each process's peak RSS and, with `logs`, every
 * process's output. Stops everything it started.
 */
async function runProduction({ recipients, tasks, logs = false, profileDir }) {
  const zk = await TestZooKeeper.start();
  const kafkaServer = await TestKafka.start();
  process.env.HERALD_TEST_MYSQL_URL = await ensureSharedMariaDb();
  process.env.HERALD_TEST_ZK = zk.connectionString;
  process.env.HERALD_TEST_KAFKA_BROKERS = kafkaServer.brokers.join(',');
  const dir = await makeTempDir('herald-bench-production-');
  const tag = randomBytes(4).toString('hex');
  const names = { database: `herald_bench_${tag}`, zkRoot: `/herald-bench-${tag}`, topicPrefix: `bench${tag}.` };
  const cluster = new ProcessCluster(
    dir.path,
    { interfaces: 1, schedulers: 2, dispatchers: 1, executors: 2, controllers: 1 },
    names,
  );
  if (profileDir !== undefined) cluster.nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
  let sampling;
  let resident;
  try {
    await cluster.configure({
      uinSpaceBits: 32,
      dispatcher: { ...(BATCH_SIZE === undefined ? {} : { batchSize: BATCH_SIZE }), unitSize: 1 << 19 },
      offline: { rangeBits: 20 },
      scheduler: { slots: 8, tickMs: 100 },
    });
    step('servers up; keys and schema');
    await cluster.keysAndSchema();
    const audience = syntheticAudience({ recipients, onlineFraction: 0.3, uinLimit: 2 ** 32, seed: 42 });
    step('starting the processes');
    await cluster.startAll();
    resident = residentSampler(cluster.processes.map((p) => p.child.pid));
    // Ready = warmed up (docs/operations.md, "Readiness"). A previous commit's processes, run side by side, have no readiness.
    if ((await cluster.status(cluster.processes[0].id)).ready !== undefined) {
      step('waiting until every process is ready');
      await cluster.waitForReady();
    }
    step(`publishing ${audience.online.length} logins`);
    await cluster.publishOnline(audience.online);
    step('waiting for the presence agents');
    await cluster.waitForPresence();
    // Each login sends the executors a walk of that user's offline list: hundreds of thousands queue up here.
    // The latency runs start once they are walked, or the first tasks would share the cores with that backlog.
    step('waiting for the executors to walk the logins');
    await loginWalksDone(cluster);
    // Every login must be in the bitmap, or the figures below would measure a smaller online set.
    for (const id of cluster.ids('presence')) {
      const { online } = SharedOnlineBitmap.inspect(cluster.bitmapFile(id));
      if (online !== audience.online.length)
        throw new Error(`presence agent ${id} has ${online} users online, ${audience.online.length} logged in`);
    }
    const recorder = profileDir === undefined ? undefined : stageRecorder(cluster, zk, kafkaServer);
    sampling = recorder && setInterval(() => void recorder.sample().catch(() => undefined), 1000);
    const mark = async (stage) => {
      if (recorder) await recorder.mark(stage);
    };
    step('uploading the list');
    const api = async (p, init) =>
      (await fetch(cluster.url + p, { ...init, headers: { ...init?.headers, ...authHeaders() } })).json();
    const binary = { 'content-type': 'application/octet-stream' };
    const json = { 'content-type': 'application/json' };

    // Reports consumer: the first report of each task stamps its first delivery.
    const firstReport = new Map();
    // A short fetch wait: the mock broker answers a fetch only when the wait ends, so kafkajs's 5 s default would pace the loop.
    const consumer = cluster.kafka().consumer({ groupId: `bench-reports-${tag}`, maxWaitTimeInMs: 20 });
    await consumer.connect();
    await consumer.subscribe({ topic: names.topicPrefix + TOPICS.reports, fromBeginning: false });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const { taskId } = JSON.parse(message.value.toString());
        if (!firstReport.has(taskId)) firstReport.set(taskId, Number(message.timestamp));
      },
    });
    const small = Array.from({ length: 1000 }, (_, i) => audience.online[i]);
    const smallList = await api('/api/v1/lists?accountId=bench', {
      method: 'POST',
      headers: binary,
      body: encodeRecipientList(small),
    });
    // Warm-up tasks until the consumer sees one: its group joins the topic at the end, a few seconds late.
    // Each with its own content: the no-resend filter would leave a repeat nobody to deliver, so no report to see.
    const warmUpUntil = Date.now() + 180_000;
    for (let seen = false, n = 0; !seen; n++) {
      if (Date.now() > warmUpUntil) throw new Error('the reports consumer saw no warm-up task within 180 s');
      const warm = await api('/api/v1/tasks', {
        method: 'POST',
        headers: json,
        body: JSON.stringify({ accountId: 'bench', listId: smallList.id, content: { body: `warm-up ${n}` } }),
      });
      const until = Date.now() + 2000;
      while (!(seen = firstReport.has(warm.id)) && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
    }

    /** Small tasks created one after another, each as soon as the previous one's first delivery was reported. */
    async function latencyRun(run) {
      const latencies = [];
      const measured = [];
      for (let i = 0; i < tasks; i++) {
        const started = Date.now();
        const t = await api('/api/v1/tasks', {
          method: 'POST',
          headers: json,
          body: JSON.stringify({ accountId: 'bench', listId: smallList.id, content: { body: `latency ${run} ${i}` } }),
        });
        for (const until = Date.now() + 60_000; !firstReport.has(t.id);) {
          if (Date.now() > until) throw new Error(`task ${t.id} had no delivery within 60 s`);
          await new Promise((r) => setTimeout(r, 2));
        }
        latencies.push(firstReport.get(t.id) - started);
        measured.push({ id: t.id, started });
      }
      return { ...percentiles(latencies), stages: await stageBreakdown(names.database, measured, firstReport) };
    }
    step('latency, first tasks after start');
    await mark('latency, first tasks after start (cold)');
    const quiet = await latencyRun('quiet'); // content differs per run: the no-resend filter would keep nobody
    await mark('uploads (blacklist, fan-out list)');

    // Fan-out.
    await api('/api/v1/blacklists/global', {
      method: 'PUT',
      headers: binary,
      body: encodeRecipientList(audience.blacklist),
    });
    const list = await api('/api/v1/lists?accountId=bench', {
      method: 'POST',
      headers: binary,
      body: encodeRecipientList(audience.list),
    });
    step('fan-out');
    await mark('fan-out: pre-processing (create -> SENDING)');
    const t0 = performance.now();
    const createdAtMs = Date.now();
    const created = await api('/api/v1/tasks', {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ accountId: 'bench', listId: list.id, content: { body: 'fan-out' }, confirm: list.count }),
    });
    let task;
    let sending = false;
    do {
      // Fine-grained until sending starts (the stage mark), then gently: polling at 50 Hz cost the interface and
      // MariaDB half a second of CPU over a 10^7 broadcast's sending, on the same two cores as the system measured.
      await new Promise((r) => setTimeout(r, sending ? SENDING_POLL_MS : 20));
      task = await api(`/api/v1/tasks/${created.id}`);
      if (!sending && (task.state === 'SENDING' || DONE.includes(task.state))) {
        sending = true;
        await mark('fan-out: sending (SENDING -> COMPLETED)');
      }
    } while (!DONE.includes(task.state));
    if (task.state !== 'COMPLETED') throw new Error(`fan-out task ended ${task.state}: ${JSON.stringify(task.error)}`);
    // The end is when the task became COMPLETED (its updatedAt, this host's clock), not when a poll saw it.
    const fanoutS = (task.updatedAt - createdAtMs) / 1000;
    step(`fan-out ${fanoutS.toFixed(2)} s to COMPLETED, seen ${((performance.now() - t0) / 1000).toFixed(2)} s`);

    step('latency right after the fan-out');
    await mark('latency, right after the fan-out (warm)');
    const after = await latencyRun('after');
    await mark('end');
    await consumer.disconnect();
    const peaks = resident.peaks();
    const processes = cluster.processes.map((p) => {
      const peak = peaks.get(p.child.pid);
      return {
        tier: p.tier,
        id: p.id,
        peakRssMiB: peak.VmHWM,
        peakAnonMiB: peak.RssAnon,
        peakFileMiB: peak.RssFile,
        peakShmemMiB: peak.RssShmem,
      };
    });
    return {
      recipients,
      tasks,
      fanoutS,
      report: task.report,
      quiet,
      after,
      processes,
      logs: logs ? cluster.logs() : undefined,
      stages: recorder?.stages(),
      profiled: recorder?.processes,
    };
  } finally {
    clearInterval(sampling);
    resident?.stop();
    step('stopping');
    await cluster.stopAll();
    const { createPool } = require('mysql2/promise');
    const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL });
    await pool.query(`DROP DATABASE IF EXISTS \`${names.database}\``);
    await pool.end();
    await dir.remove();
    await kafkaServer.stop();
    await zk.destroy();
  }
}

/** Waits until every executor's login queue is empty and its walk count held still for a second. */
async function loginWalksDone(cluster) {
  const { waitFor } = require('@herald/testing');
  const executors = cluster.processes.filter((p) => p.tier === 'executor');
  const counters = async (p) => {
    const response = await fetch(`http://${cluster.managementAddress(p.id)}/metrics`, {
      headers: cluster.managementHeaders(),
    });
    const values = breakdown.parseExposition(await response.text());
    const sum = (name) => [...values].filter(([k]) => k.split('{')[0] === name).reduce((a, [, v]) => a + v, 0);
    return `${sum('herald_executor_login_queue')}/${sum('herald_executor_login_walks_total')}`;
  };
  let previous;
  let stillSince = Date.now();
  await waitFor(
    async () => {
      const now = (await Promise.all(executors.map(counters))).join(',');
      if (now !== previous) [previous, stillSince] = [now, Date.now()];
      return executors.every((_, i) => now.split(',')[i].startsWith('0/')) && Date.now() - stillSince >= 1000;
    },
    { timeoutMs: 300_000, intervalMs: 250, message: 'executors walked the logins' },
  );
}

/**
 * Follows every Herald process (its /proc counters and its management
 * endpoint's default metrics) and the servers on this host (/proc only):
 * MariaDB is the machine's shared one, so its figures include other work.
 */
function stageRecorder(cluster, zk, kafkaServer) {
  const { execFileSync } = require('node:child_process');
  const pidOf = (name) => {
    try {
      return Number(execFileSync('pidof', ['-s', name], { encoding: 'utf8' }).trim()) || undefined;
    } catch {
      return undefined;
    }
  };
  const processes = [
    ...cluster.processes.map((p) => ({
      name: `${p.tier} ${p.id}`,
      pid: p.child.pid,
      management: cluster.managementAddress(p.id),
    })),
    // The test services keep their child private; a bench may look (the pid only).
    { name: 'ZooKeeper', pid: zk.child?.pid },
    { name: 'Kafka mock', pid: kafkaServer.child?.pid },
    { name: 'MariaDB (shared)', pid: pidOf('mariadbd') ?? pidOf('mysqld') },
  ].filter((p) => p.pid !== undefined);
  const headers = cluster.managementHeaders();
  return new breakdown.StageRecorder(processes, async (p) => {
    const counters = breakdown.procCounters(p.pid);
    if (p.management === undefined) return counters;
    try {
      const response = await fetch(`http://${p.management}/metrics`, { headers });
      const values = breakdown.parseExposition(await response.text());
      return { ...counters, ...breakdown.runtimeFromMetrics(values), queues: breakdown.queueDepths(values) };
    } catch {
      return counters;
    }
  });
}

/**
 * Where the create -> first delivery time goes, per task, from the outbox's
 * state-change times (the task store's clock) and the first report's time.
 */
async function stageBreakdown(database, measured, firstReport) {
  const { createPool } = require('mysql2/promise');
  const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL, database });
  try {
    const [rows] = await pool.query(
      'SELECT task_id, to_state, `at` FROM task_events WHERE task_id IN (?) ORDER BY id',
      [measured.map((m) => m.id)],
    );
    const at = new Map(measured.map((m) => [m.id, { request: m.started }]));
    for (const row of rows) at.get(Number(row.task_id))[row.to_state] ??= Number(row.at);
    const marks = [
      ['request', 'CREATED', 'request -> CREATED (interface)'],
      ['CREATED', 'QUEUED', 'CREATED -> QUEUED (to the scheduler, claim)'],
      ['QUEUED', 'PREPROCESSING', 'QUEUED -> PREPROCESSING (admission)'],
      ['PREPROCESSING', 'DISPATCHING', 'PREPROCESSING -> DISPATCHING (filters, plan)'],
      ['DISPATCHING', 'SENDING', 'DISPATCHING -> SENDING'],
      ['SENDING', 'report', 'SENDING -> first delivery'],
    ];
    return marks.map(([from, to, stage]) => {
      const values = measured
        .map((m) => {
          const t = { ...at.get(m.id), report: firstReport.get(m.id) };
          return t[to] - t[from];
        })
        .filter(Number.isFinite);
      return { stage, ...percentiles(values) };
    });
  } finally {
    await pool.end();
  }
}

async function main() {
  const recipients = Number(arg('--recipients', 1_000_000));
  const tasks = Number(arg('--tasks', 100));
  const load = loadAverage();
  const profileDir = process.argv.includes('--breakdown')
    ? await require('node:fs/promises').mkdtemp(path.join(require('node:os').tmpdir(), 'herald-breakdown-'))
    : undefined;
  const result = await runProduction({ recipients, tasks, logs: process.argv.includes('--logs'), profileDir });
  const { fanoutS, report, quiet, after } = result;
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const table = [
    `### Production profile on one host — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. Load average (1 min) ${fmt(load, 2)} at the start, ${fmt(loadAverage(), 2)} at the end. Processes: 1 interface, 2 schedulers, 1 dispatcher, 1 presence agent, 2 executors, 1 controller; MariaDB 10.11, ZooKeeper 3.8 standalone, librdkafka mock Kafka (3 brokers); CURVE on every link; batches of ${fmt(BATCH_SIZE ?? DEFAULTS.dispatcher.batchSize)} uins. Command: \`node bench/production.js --recipients ${recipients} --tasks ${tasks}${BATCH_SIZE === undefined ? '' : ` --batch-size ${BATCH_SIZE}`}${profileDir ? ' --breakdown' : ''}\`.`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| fan-out of ${fmt(recipients)} recipients, create to COMPLETED | ${fmt(fanoutS, 2)} s = ${fmt(recipients / fanoutS)} recipients/s |`,
    `| delivered / offline / filtered | ${fmt(report.delivered)} / ${fmt(report.offline)} / ${fmt(Object.values(report.removed).reduce((a, b) => a + b, 0))} |`,
    ...[
      ['for the first tasks after start (cold: connection pools, Kafka partition metadata, JIT)', quiet],
      ["for the next tasks, right after the fan-out (warm; the fan-out's compactions and relays still running)", after],
    ].flatMap(([when, p]) => [
      `| create -> first delivery ${when}, ${tasks} tasks of 1,000 recipients one after another: p50 / p99 / max | ${fmt(p.p50)} / ${fmt(p.p99)} / ${fmt(p.max)} ms |`,
      ...p.stages.map(
        ({ stage, p50, p99, max }) => `| &nbsp;&nbsp;of which ${stage} | ${fmt(p50)} / ${fmt(p99)} / ${fmt(max)} ms |`,
      ),
    ]),
    '',
    ...residentTable(result.processes),
    ...(profileDir === undefined ? [] : productionBreakdown(result, profileDir)),
  ].join('\n');
  process.stdout.write(table + '\n');
  if (process.argv.includes('--record')) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + table);
  if (process.argv.includes('--logs')) process.stderr.write(result.logs + '\n');
}

/**
 * Each process's peak resident set over the run (VmHWM), beside the largest of its parts seen by the
 * 0.5 s sampler: anonymous memory is the process's own; file and shared pages are mapped lists and the
 * host's one online bitmap, which the kernel can drop or shares between processes.
 */
function residentTable(processes) {
  const mib = (n) => (n === undefined ? 'n/a' : fmt(n));
  return [
    '| process | peak RSS, VmHWM (MiB) | largest anonymous (MiB) | largest file-backed (MiB) | largest shared memory (MiB) |',
    '|---|---:|---:|---:|---:|',
    ...processes.map(
      (p) =>
        `| ${p.tier} ${p.id} | ${mib(p.peakRssMiB)} | ${mib(p.peakAnonMiB)} | ${mib(p.peakFileMiB)} | ${mib(p.peakShmemMiB)} |`,
    ),
    '',
  ];
}

/** The --breakdown section: per stage, per process (bench/breakdown.js). */
function productionBreakdown({ stages, profiled, recipients }, profileDir) {
  const profiles = breakdown.summariseProfiles(profileDir, stages, profiled);
  const withRates = stages.map((st) => ({
    ...st,
    recipients: st.stage.startsWith('fan-out') ? recipients : undefined,
  }));
  return [
    '#### Breakdown per stage and process (`--breakdown`)',
    '',
    "Every Herald process ran under `--cpu-prof` (sampling adds a few per cent of CPU). CPU is all threads (/proc); \"JS busy\" is the profiled thread's non-idle samples; GC and event-loop delay from each process's /metrics (the delay is the worst 1-s scrape's p99 and max); written bytes from /proc/<pid>/io. The servers have no profile and no /metrics.",
    '',
    ...withRates.map((st, s) =>
      breakdown.breakdownMarkdown([st], [profiles[s]], { profileDir, recipients: st.recipients, footer: false }),
    ),
    `CPU profiles (one per thread, \`--cpu-prof\`): \`${profileDir}\`.`,
    '',
  ];
}

module.exports = { runProduction };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`bench: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
