#!/usr/bin/env node
/**
 * APTA scheduler failover, timed over many kills, with real processes: the
 * production profile on this host (3 schedulers, 1 dispatcher, 2 executors,
 * 1 interface, 1 controller, 1 presence agent; MariaDB, a standalone
 * ZooKeeper, librdkafka's mock Kafka; CURVE on every link). Each round
 *   1. creates a broadcast and waits until it is SENDING with progress;
 *   2. SIGKILLs the scheduler that owns it (the ring's owner of the task id,
 *      which must also be the owner the task store names);
 *   3. times, from the kill:
 *      - new ring: the first survivor scheduler's 'ring of schedulers
 *        changed' log line without the killed one (its own timestamp);
 *      - adoption: the survivor's 'rebalanced after a ring change' line with
 *        adopted >= 1 (logged once the task is claimed, epoch + 1, and its
 *        units re-sent from their checkpoints);
 *      - resumed: the first poll of GET /api/v1/tasks/:id (every ~10 ms) that
 *        shows the task under a newer epoch, another owner, and a report
 *        (delivered + offline) above the one at the kill. Why this signal
 *        (bench/RESULTS.md repeats it): only the task's owner writes the
 *        report, fenced by the epoch, and a new owner writes it only from a
 *        unit.progress received after it re-ran the units; so a grown report
 *        under the new epoch proves executors are confirming batches to the
 *        NEW owner. The executors' delivery files cannot prove that: the
 *        dispatcher keeps streaming the dead owner's units until the new
 *        owner's unit.run supersedes them, and executors stall only once their
 *        progress messages to the dead scheduler fill the link (64 messages).
 *        They are sampled too, for the longest pause in delivery between the
 *        kill and the resume. The report is throttled to one write per 250 ms
 *        per owner, but a new owner has no previous write, so its first one
 *        follows its first recorded progress at once: the resolution is the
 *        poll's cycle (printed), not 250 ms;
 *   4. waits for the broadcast to end (it must be COMPLETED), restarts the
 *      killed scheduler and waits for the ring of three again (GET
 *      /api/v1/cluster on the interface, and every scheduler's own log).
 * With --record the result is appended to bench/RESULTS.md.
 *
 * --tier executor kills an executor instead, at the default timers
 * (bench/failover-executor.js says what it times).
 *
 *   node bench/failover.js [--tier scheduler|executor] [--kills 20] [--recipients 1000000]
 *     [--hello 100] [--dead 600] [--silence 600] [--record] [--logs <dir>]
 *     (executor tier: hello / dead / silence default to 1000 / 4000 / 12000)
 *
 * --logs writes every process's whole output to <dir>, one file per process run.
 */
const { appendFile, mkdir, stat, writeFile } = require('node:fs/promises');
const path = require('node:path');
const { encodeRecipientList } = require('@herald/core/recipient-list');
const { allocateTasks } = require('@herald/core/apta');
const { authHeaders, makeTempDir, ProcessCluster, waitFor } = require('@herald/testing');
const { percentiles, machine, commit, arg, loadAverage, benchAudience, startProductionServers } = require('./lib');
const { executorRound, unitReader, describeExecutorRound, summariseExecutor } = require('./failover-executor');

const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];
/** docs/apta.md's defaults, for what they would imply. */
const DEFAULT_APTA = { helloIntervalMs: 1000, deadIntervalMs: 4000, silencePeriodMs: 12_000 };

const begun = performance.now();
/** Progress on stderr, so a long run shows where it is. */
const step = (what) => process.stderr.write(`[${((performance.now() - begun) / 1000).toFixed(1)} s] ${what}\n`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const isLive = (p) => p.child.exitCode === null && p.child.signalCode === null;
const progressOf = (task) => task.report.delivered + task.report.offline;

/** The JSON log lines a process wrote from character `from` on (whole lines only), with their time in ms. */
function logLines(handle, from = 0) {
  const text = handle.output.slice(from, handle.output.lastIndexOf('\n') + 1);
  const lines = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      lines.push({ ...entry, at: Date.parse(entry.time) });
    } catch {
      // not a log line
    }
  }
  return lines;
}

/** The scheduler ring a process last logged, or undefined before its first. */
function lastRing(handle) {
  const rings = logLines(handle).filter((l) => l.msg === 'ring of schedulers changed');
  return rings.at(-1)?.members;
}

async function main() {
  const kills = Number(arg('--kills', 20));
  const recipients = Number(arg('--recipients', 1_000_000));
  const tier = arg('--tier', 'scheduler');
  if (tier !== 'scheduler' && tier !== 'executor') throw new Error(`--tier: scheduler or executor, not ${tier}`);
  // The executor tier runs at the default timers (the stall watch dominates); the scheduler tier at short APTA ones.
  const aptaDefault =
    tier === 'executor' ? DEFAULT_APTA : { helloIntervalMs: 100, deadIntervalMs: 600, silencePeriodMs: 600 };
  const apta = {
    helloIntervalMs: Number(arg('--hello', aptaDefault.helloIntervalMs)),
    deadIntervalMs: Number(arg('--dead', aptaDefault.deadIntervalMs)),
    silencePeriodMs: Number(arg('--silence', aptaDefault.silencePeriodMs)),
  };
  const loadAtStart = loadAverage();
  const servers = await startProductionServers('failover');
  const dir = await makeTempDir('herald-bench-failover-');
  const cluster = new ProcessCluster(
    dir.path,
    { interfaces: 1, schedulers: 3, dispatchers: 1, executors: 2, controllers: 1, presence: 1, apta },
    servers.names,
  );
  const schedulers = cluster.ids('scheduler');
  let cleaning;
  const cleanUp = () =>
    (cleaning ??= (async () => {
      step('stopping');
      await stopEverything(cluster);
      await dir.remove().catch(() => undefined);
      await servers.stop();
    })());
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

  try {
    // The failover test's unit shape: 1,000-uin batches, so executors' progress backs up soon after a kill, as it would at scale.
    await cluster.configure({
      uinSpaceBits: 32,
      dispatcher: { batchSize: 1000, unitSize: 25_000 },
      offline: { rangeBits: 20 },
      scheduler: { slots: 8, tickMs: 100 },
    });
    step('servers up; keys and schema');
    await cluster.keysAndSchema();
    const audience = benchAudience(recipients, 0.3);
    step('starting the processes');
    await cluster.startAll();
    step(`publishing ${audience.online.length} logins`);
    await cluster.publishOnline(audience.online);
    await cluster.waitForPresence();
    await waitForRingOfThree(cluster, schedulers, 60_000);

    const api = async (p, init) => {
      const response = await fetch(cluster.url + p, { ...init, headers: { ...init?.headers, ...authHeaders() } });
      if (!response.ok)
        throw new Error(`${init?.method ?? 'GET'} ${p}: HTTP ${response.status} ${await response.text()}`);
      return response.json();
    };
    const binary = { 'content-type': 'application/octet-stream' };
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

    const rounds = [];
    const reader = tier === 'executor' ? unitReader(servers.names.database) : undefined;
    for (let i = 1; i <= kills; i++) {
      const result =
        tier === 'executor'
          ? await executorRound({ cluster, api, list, round: i, reader, logLines })
          : await killRound({ cluster, api, list, schedulers, round: i });
      rounds.push(result);
      step(`round ${i}: ${tier === 'executor' ? describeExecutorRound(result) : describe(result)}`);
    }
    await reader?.close();

    const report =
      tier === 'executor'
        ? summariseExecutor({ rounds, kills, recipients, apta, loadAtStart, loadAtEnd: loadAverage() })
        : summarise({
            rounds,
            kills,
            recipients,
            apta,
            loadAtStart,
            pollMs: rounds.flatMap((r) => r.pollCycles),
          });
    process.stdout.write(report + '\n');
    if (process.argv.includes('--record')) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + report);
    const logsDir = arg('--logs', undefined);
    if (logsDir !== undefined) {
      await mkdir(logsDir, { recursive: true });
      for (const [n, p] of cluster.processes.entries())
        await writeFile(path.join(logsDir, `${n}-${p.id}.log`), p.output);
    }
    const lost = (r) => r.final === undefined || r.final.delivered + r.final.offline !== r.final.kept;
    if (rounds.some((r) => r.finalState !== 'COMPLETED' || r.error || (tier === 'executor' && lost(r))))
      process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}

/** One kill: create, wait for sending, kill the owner, time the failover, wait for the end, restart, wait for the ring of three. */
async function killRound({ cluster, api, list, schedulers, round }) {
  const load = loadAverage();
  // The content differs per round: the no-resend filter would keep nobody otherwise.
  const created = await api('/api/v1/tasks', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      accountId: 'bench',
      listId: list.id,
      content: { body: `failover ${round}` },
      confirm: list.count,
    }),
  });
  const owner = allocateTasks(schedulers).ownerOf(created.id); // APTA's ring, its vnode count
  let task;
  await waitFor(
    async () => {
      task = await api(`/api/v1/tasks/${created.id}`);
      return task.state === 'SENDING' && progressOf(task) > 0 && task.owner === owner;
    },
    {
      timeoutMs: 120_000,
      intervalMs: 10,
      message: `task ${created.id} sending with progress under ${owner} (last: ${task?.state}, owner ${task?.owner})`,
    },
  );
  const result = {
    round,
    taskId: created.id,
    load,
    killed: owner,
    atKill: progressOf(task),
    total: task.report.kept,
    units: task.report.units,
    pollCycles: [],
  };
  const victim = cluster.processes.find((p) => p.id === owner && isLive(p));
  const survivors = cluster.processes.filter((p) => p.tier === 'scheduler' && p !== victim && isLive(p));
  const offsets = new Map(survivors.map((p) => [p, p.output.length]));
  const killEpoch = task.epoch;
  const deliveries = deliveryFiles(cluster, created.id);

  const killAt = Date.now();
  await cluster.stop(victim, 'SIGKILL');
  // Poll the task (resume) and the delivery files (pauses) until the new owner's report grows.
  const growth = [killAt];
  let bytes = await deliveredBytes(deliveries);
  for (const deadline = killAt + 60_000; result.resumedMs === undefined && Date.now() < deadline;) {
    const asked = Date.now();
    const [seen, now] = await Promise.all([
      api(`/api/v1/tasks/${created.id}`).catch(() => undefined),
      deliveredBytes(deliveries),
    ]);
    const answered = Date.now();
    result.pollCycles.push(answered - (result.lastPoll ?? asked));
    result.lastPoll = answered;
    if (now > bytes) growth.push(answered);
    bytes = now;
    if (seen !== undefined && seen.epoch > killEpoch && seen.owner !== owner && progressOf(seen) > result.atKill) {
      result.resumedMs = answered - killAt;
      result.resumedBy = seen.owner;
      result.atResume = progressOf(seen);
      growth.push(answered);
    }
    await sleep(10);
  }
  delete result.lastPoll;
  result.deliveryPauseMs = Math.max(...growth.slice(1).map((t, k) => t - growth[k]));

  // The survivors' log lines (flushed through a pipe: give them a moment).
  const lines = () =>
    survivors.flatMap((p) => logLines(p, offsets.get(p)).map((l) => ({ ...l, id: p.id }))).sort((a, b) => a.at - b.at);
  const ring = () =>
    lines().find((l) => l.msg === 'ring of schedulers changed' && l.members.length > 0 && !l.members.includes(owner));
  const claim = () => lines().find((l) => l.msg === 'scheduler followed the ring' && l.adopted >= 1);
  const adoption = () => lines().find((l) => l.msg === 'rebalanced after a ring change' && l.adopted >= 1);
  await waitFor(() => ring() !== undefined && adoption() !== undefined, {
    timeoutMs: 5000,
    message: 'log lines',
  }).catch(() => undefined);
  result.ringMs = ring() && ring().at - killAt;
  result.claimedMs = claim() && claim().at - killAt;
  result.adoptedMs = adoption() && adoption().at - killAt;
  result.adoptedBy = adoption()?.id;
  if (result.resumedMs === undefined) result.error = `no progress under a new owner within 60 s`;

  let ended;
  await waitFor(
    async () => {
      ended = await api(`/api/v1/tasks/${created.id}`);
      return FINAL.includes(ended.state);
    },
    { timeoutMs: 300_000, intervalMs: 100, message: `task ${created.id} to end` },
  ).catch((error) => (result.error ??= String(error.message)));
  result.finalState = ended?.state;
  result.final = ended && { delivered: ended.report.delivered, offline: ended.report.offline, kept: ended.report.kept };

  const restartAt = Date.now();
  await cluster.start('scheduler', owner);
  await waitForRingOfThree(cluster, schedulers, 120_000);
  result.rejoinMs = Date.now() - restartAt;
  return result;
}

/** Until the interface's GET /api/v1/cluster and every live scheduler's own log show the ring of all schedulers. */
async function waitForRingOfThree(cluster, schedulers, timeoutMs) {
  const full = JSON.stringify(schedulers);
  await waitFor(
    async () => {
      const view = await (await fetch(`${cluster.url}/api/v1/cluster`, { headers: authHeaders() })).json();
      if (JSON.stringify(view.ring) !== full) return false;
      return cluster.processes
        .filter((p) => p.tier === 'scheduler' && isLive(p))
        .every((p) => JSON.stringify(lastRing(p)) === full);
    },
    { timeoutMs, intervalMs: 50, message: `the ring of ${full}\n${cluster.logs()}` },
  );
}

/** Each executor's delivery file for the task (the file sink under <dataDir>/deliveries/<executor>). */
function deliveryFiles(cluster, taskId) {
  return cluster
    .ids('executor')
    .map((id) => path.join(cluster.dir, 'data', 'deliveries', id, `task-${taskId}.deliveries`));
}

async function deliveredBytes(files) {
  let total = 0;
  for (const file of files)
    total += await stat(file).then(
      (s) => s.size,
      () => 0,
    );
  return total;
}

/** SIGTERM to every process still running; SIGKILL to any still there after 10 s. */
async function stopEverything(cluster) {
  await Promise.all(
    cluster.processes.filter(isLive).map(async (p) => {
      const exited = new Promise((resolve) => p.child.once('exit', resolve));
      p.child.kill('SIGTERM');
      const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}

const fmt = (n, d = 0) =>
  n === undefined ? '-' : n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });

function describe(r) {
  return `task ${r.taskId}, killed ${r.killed}; ring ${fmt(r.ringMs)} ms, adopted ${fmt(r.adoptedMs)} ms by ${r.adoptedBy ?? '?'}, resumed ${fmt(r.resumedMs)} ms; ${r.finalState}${r.error ? ` (${r.error.split('\n')[0]})` : ''}`;
}

/** A completed task's report must count every kept recipient once: say so when it does not. */
function mismatch(r) {
  if (r.final === undefined || r.final.delivered + r.final.offline === r.final.kept) return '';
  return ` (report: ${fmt(r.final.delivered)} delivered + ${fmt(r.final.offline)} offline, kept ${fmt(r.final.kept)})`;
}

function summarise({ rounds, kills, recipients, apta, loadAtStart, pollMs }) {
  const stats = (key) => {
    const values = rounds.map((r) => r[key]).filter((v) => v !== undefined);
    return values.length === 0 ? undefined : { ...percentiles(values), n: values.length };
  };
  const row = (what, s) =>
    `| ${what} | ${s ? `${fmt(s.p50)} / ${fmt(s.p95)} / ${fmt(s.p99)} / ${fmt(s.max)}` : '-'} | ${s?.n ?? 0} |`;
  const ring = stats('ringMs');
  const resumed = stats('resumedMs');
  const poll = percentiles(pollMs);
  const timers = apta.deadIntervalMs + apta.silencePeriodMs;
  const defaults = DEFAULT_APTA.deadIntervalMs + DEFAULT_APTA.silencePeriodMs;
  const notCompleted = rounds.filter((r) => r.finalState !== 'COMPLETED');
  const errors = rounds.filter((r) => r.error);
  const apiOwner = rounds.filter(
    (r) => r.resumedBy !== undefined && r.adoptedBy !== undefined && r.resumedBy !== r.adoptedBy,
  );
  return [
    `### Scheduler failover (APTA), production profile on one host — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}; 1-minute load average ${loadAtStart.toFixed(2)} at the start. Processes: 3 schedulers, 1 dispatcher, 2 executors, 1 interface, 1 controller, 1 presence agent; MariaDB, ZooKeeper standalone, librdkafka mock Kafka; CURVE on every link. APTA timers hello ${apta.helloIntervalMs} / dead ${apta.deadIntervalMs} / silence ${apta.silencePeriodMs} ms. Each round: a broadcast of ${fmt(recipients)} recipients (online share 0.3; batches of 1,000, units of 25,000), SIGKILL of its owner once it is SENDING with progress, then (after it ended) a restart of the killed scheduler and a wait for the ring of three. Command: \`node bench/failover.js --kills ${kills} --recipients ${recipients} --hello ${apta.helloIntervalMs} --dead ${apta.deadIntervalMs} --silence ${apta.silencePeriodMs}\`.`,
    '',
    '| from the SIGKILL to | p50 / p95 / p99 / max (ms) | kills |',
    '|---|---:|---:|',
    row("a ring without it (first survivor's log line)", ring),
    row(
      "claim (survivor logs 'scheduler followed the ring', adopted >= 1: task claimed, epoch + 1, requeued)",
      stats('claimedMs'),
    ),
    row(
      "adoption (survivor logs 'rebalanced after a ring change', adopted >= 1: units re-sent from their checkpoints)",
      stats('adoptedMs'),
    ),
    row("resumed delivery (the task's report grows under the new owner's epoch)", resumed),
    row('longest pause in delivery-file growth, kill to resume', stats('deliveryPauseMs')),
    row('restart of the killed scheduler -> ring of three again', stats('rejoinMs')),
    '',
    '| round | load avg | task | killed | adopted by | ring (ms) | claim (ms) | adoption (ms) | resumed (ms) | pause (ms) | progress at kill / at resume / kept | end |',
    '|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---|---|',
    ...rounds.map(
      (r) =>
        `| ${r.round} | ${r.load.toFixed(2)} | ${r.taskId} | ${r.killed} | ${r.adoptedBy ?? '-'} | ${fmt(r.ringMs)} | ${fmt(r.claimedMs)} | ${fmt(r.adoptedMs)} | ${fmt(r.resumedMs)} | ${fmt(r.deliveryPauseMs)} | ${fmt(r.atKill)} / ${fmt(r.atResume)} / ${fmt(r.total)} | ${r.finalState ?? '-'}${mismatch(r)}${r.error ? ` (${r.error.split('\n')[0].slice(0, 120)})` : ''} |`,
    ),
    '',
    'Notes:',
    `- Broadcasts: ${rounds.length - notCompleted.length} of ${rounds.length} COMPLETED${notCompleted.length ? `; not completed: ${notCompleted.map((r) => `round ${r.round} (${r.finalState ?? 'did not end'})`).join(', ')}` : ''}. ${errors.length ? `Errors: ${errors.map((r) => `round ${r.round}: ${r.error.split('\n')[0].slice(0, 200)}`).join('; ')}.` : 'Every round resumed under a new owner.'}${apiOwner.length ? ` In ${apiOwner.length} round(s) the owner the task store named at the resume was not the scheduler that logged the adoption.` : ''}`,
    `- Resumed = the first poll of GET /api/v1/tasks/:id showing a newer epoch, another owner and delivered + offline above its value at the kill. Only the owner writes the report (fenced by epoch), and a new owner writes it only from progress received after it re-sent the units, so this proves the new owner resumed; delivery files cannot (the dispatcher keeps streaming the dead owner's units until the new owner's unit.run supersedes them). The scheduler writes the report at most every 250 ms, but a new owner's first write follows its first recorded progress at once, so the resolution is the poll cycle: p50 ${fmt(poll.p50)} ms, p99 ${fmt(poll.p99)} ms (a request to the interface and MariaDB, then 10 ms). Ring and adoption times come from the processes' own log timestamps (same host clock, 1 ms).`,
    `- Claim -> adoption is the survivor's rebalance job after the claim: requeue, admission, then per unit a checkpoint read (ZooKeeper) and fenced unit writes (MariaDB) before its unit.run goes out (${fmt(rounds[0]?.units)} units here); the scheduler logs it as 'slow scheduler job' (what: rebalance) when it takes over 100 ms. Until it ends, the executors keep delivering what the dispatcher still streams for the dead owner, reporting to the new owner once the ring moved; hence a pause in delivery shorter than kill -> resumed.`,
    `- With ${kills} kills, p99 is the largest value but one at most (nearest rank): read it as a max.`,
    `- The model (docs/apta.md, "A member that died"): a killed member's connections close at once, so its peers mark it gone after one refused reconnect (zeromq's reconnect interval, 100 ms) and its ring successors own its arc from then on (the interim ring), whatever the timers${ring ? `; measured kill -> ring p50 ${fmt(ring.p50)} ms` : ''}. Only the ring as a whole waits: agreed again after an LSR round trip + silencePeriodMs (${fmt(apta.silencePeriodMs)} ms here). A member that is only cut off (partitioned, paused: no connection closed) still leaves after deadIntervalMs + an LSR round trip + silencePeriodMs = ${fmt(timers)} ms here (${fmt(defaults)} ms with the defaults, hello ${DEFAULT_APTA.helloIntervalMs} / dead ${DEFAULT_APTA.deadIntervalMs} / silence ${DEFAULT_APTA.silencePeriodMs} ms). Builds before the interim ring (before 2026-11-26) waited for that on a kill too.`,
    '',
  ].join('\n');
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
