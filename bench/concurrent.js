#!/usr/bin/env node
/**
 * Many concurrent small tasks on the embedded profile, and whether real-time
 * tasks starve behind them. Every one of `--tasks` normal tasks (each its own
 * list of `--recipients` distinct uins, `--online` of them online) is created
 * over the HTTP API as fast as 16 clients can, so all are live at once; the
 * scheduler runs `scheduler.slots` of them at a time (the embedded default)
 * and queues the rest by score. While any of them is still live, real-time
 * tasks (1,000 online recipients each) are created one after another, and
 * each one's create -> first delivery is timed as bench/latency.js does (from
 * sending the create request to its first batch reaching the delivery
 * gateway).
 *
 * Completion time of a normal task: from sending its create request to
 * COMPLETED (the task's updatedAt when it was found final, the store's clock,
 * which is this process's). Setup (list uploads, online bitmap, one unmeasured
 * real-time task to warm the cluster up) is excluded. Every normal task must
 * end COMPLETED with a report that reconciles, or the run fails.
 *
 *   node bench/concurrent.js [--tasks 1000] [--recipients 10000] [--online 0.3] [--probes 30] [--record]
 *
 * bench/suite.js calls runConcurrent directly.
 */
const { mkdtemp, rm, appendFile } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { encodeRecipientList } = require('@herald/core/recipient-list');
const { FileDeliverySink } = require('@herald/executor');
const { startEmbeddedCluster } = require('@herald/embedded');
const { authHeaders, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');
const { percentiles, machine, commit, arg, fmt } = require('./lib');

const URGENT_RECIPIENTS = 1000;
const CREATE_CLIENTS = 16;
const POLL_MS = 100;
const PROBE_GAP_MS = 200;
const PROBE_TIMEOUT_MS = 60_000;
const FINAL = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A gateway that stamps, per task, when its first batch arrived (performance.now()). */
function firstDeliveryGateway(inner) {
  const first = new Map();
  return {
    first,
    deliver: async (delivery) => {
      if (!first.has(delivery.taskId)) first.set(delivery.taskId, performance.now());
      await inner.deliver(delivery);
    },
    close: () => inner.close(),
  };
}

/** Whether `uin` is online: a fixed hash, so every run sees the same audience. */
function isOnlineUin(uin, share) {
  return Math.imul(uin, 2654435761) >>> 0 < share * 2 ** 32;
}

/** Runs `worker(i)` for i in [0, count) on `clients` concurrent loops. */
async function forEachConcurrently(count, clients, worker) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(clients, count) }, async () => {
      while (next < count) await worker(next++);
    }),
  );
}

/**
 * Creates `tasks` normal tasks of `recipients` each at once on a fresh
 * embedded cluster and probes real-time latency while they run. Returns the
 * completion-time and probe percentiles (ms) and the totals.
 */
async function runConcurrent({ tasks, recipients, online, probes, log = () => {} }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-concurrent-'));
  const gateway = firstDeliveryGateway(new FileDeliverySink(path.join(dir, 'deliveries')));
  const urgentBase = tasks * recipients;
  const uinSpaceBits = Math.max(24, Math.ceil(Math.log2(urgentBase + URGENT_RECIPIENTS)));
  const cluster = await startEmbeddedCluster(
    {
      dataDir: path.join(dir, 'data'),
      http: { port: 0 },
      uinSpaceBits,
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
      tasks: TEST_TASK_OPTIONS,
    },
    { gateway },
  );
  const post = async (route, body, binary) => {
    const response = await fetch(cluster.url + route, {
      method: 'POST',
      headers: { 'content-type': binary ? 'application/octet-stream' : 'application/json', ...authHeaders() },
      body: binary ? body : JSON.stringify(body),
    });
    const json = await response.json();
    if (response.status >= 300) throw new Error(`${route}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  try {
    log(`uploading ${fmt(tasks)} lists of ${fmt(recipients)} recipients`);
    const listIds = new Array(tasks);
    await forEachConcurrently(tasks, CREATE_CLIENTS, async (i) => {
      const uins = Uint32Array.from({ length: recipients }, (_, j) => i * recipients + j);
      for (const uin of uins) if (isOnlineUin(uin, online)) cluster.online.setOnline(uin, true);
      listIds[i] = (await post('/api/v1/lists?accountId=bench', encodeRecipientList(uins), true)).id;
    });
    const urgentUins = Uint32Array.from({ length: URGENT_RECIPIENTS }, (_, j) => urgentBase + j);
    for (const uin of urgentUins) cluster.online.setOnline(uin, true);
    const urgentList = (await post('/api/v1/lists?accountId=bench', encodeRecipientList(urgentUins), true)).id;

    let probeNo = 0;
    /** One real-time task: create -> first delivery in ms. */
    const probe = async () => {
      const started = performance.now();
      const task = await post('/api/v1/tasks', {
        accountId: 'bench',
        listId: urgentList,
        priority: 'realtime',
        content: { body: `urgent ${probeNo++}` },
        confirm: URGENT_RECIPIENTS,
      });
      while (!gateway.first.has(task.id)) {
        if (performance.now() - started > PROBE_TIMEOUT_MS)
          throw new Error(`real-time task ${task.id} had no delivery within ${PROBE_TIMEOUT_MS / 1000} s`);
        await new Promise((r) => setImmediate(r));
      }
      return gateway.first.get(task.id) - started;
    };
    await probe(); // warm-up, not measured

    log(`creating ${fmt(tasks)} tasks`);
    const created = new Array(tasks);
    const firstCreate = Date.now();
    await forEachConcurrently(tasks, CREATE_CLIENTS, async (i) => {
      const requestAt = Date.now();
      // confirm: a list over accounts.defaultLimits.confirmAbove needs its count repeated (docs/account-quotas.md).
      const task = await post('/api/v1/tasks', {
        accountId: 'bench',
        listId: listIds[i],
        content: { body: `concurrent ${i}` },
        confirm: recipients,
      });
      created[i] = { id: task.id, requestAt };
    });
    const allCreatedS = (Date.now() - firstCreate) / 1000;
    const normalIds = new Set(created.map((c) => c.id));

    // Completion: a task is done once it leaves the live set; its final record says when.
    const live = async () => (await cluster.store.listLiveTasks()).filter((t) => normalIds.has(t.id)).length;
    let liveNow = await live();
    const probeMs = [];
    const liveAtProbe = [];
    let lastReport = Date.now();
    while (liveNow > 0) {
      if (probeMs.length < probes) {
        liveAtProbe.push(liveNow);
        probeMs.push(await probe());
        await pause(PROBE_GAP_MS);
      } else {
        await pause(POLL_MS);
      }
      liveNow = await live();
      if (Date.now() - lastReport > 5000) {
        log(`  ${fmt(liveNow)} of ${fmt(tasks)} tasks still live, ${probeMs.length} real-time probes`);
        lastReport = Date.now();
      }
    }
    const completionMs = [];
    const totals = { delivered: 0, offline: 0, removed: 0 };
    let lastDone = 0;
    for (const { id, requestAt } of created) {
      const task = await cluster.store.getTask(id);
      if (task.state !== 'COMPLETED') throw new Error(`task ${id} ended ${task.state}: ${JSON.stringify(task.error)}`);
      const r = task.report;
      const removed = Object.values(r.removed).reduce((a, b) => a + b, 0);
      if (r.delivered + r.offline + removed !== r.total || r.total !== recipients)
        throw new Error(`task ${id}: report does not reconcile: ${JSON.stringify(r)}`);
      totals.delivered += r.delivered;
      totals.offline += r.offline;
      totals.removed += removed;
      completionMs.push(task.updatedAt - requestAt);
      lastDone = Math.max(lastDone, task.updatedAt);
    }
    const wallS = (lastDone - firstCreate) / 1000;
    return {
      tasks,
      recipients,
      online,
      slots: cluster.config.scheduler.slots,
      allCreatedS,
      wallS,
      rate: (tasks * recipients) / wallS,
      completion: percentiles(completionMs),
      probes: probeMs.length,
      probe: probeMs.length > 0 ? percentiles(probeMs) : undefined,
      liveAtProbe:
        liveAtProbe.length > 0 ? { first: liveAtProbe[0], last: liveAtProbe[liveAtProbe.length - 1] } : undefined,
      ...totals,
    };
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

/** The result as a markdown table (no heading). */
function concurrentTable(r) {
  const ms = (p) => `${fmt(p.p50)} / ${fmt(p.p99)} / ${fmt(p.max)} ms`;
  return [
    '| measure | value |',
    '|---|---:|',
    `| ${fmt(r.tasks)} normal tasks of ${fmt(r.recipients)} recipients (${r.online} online), ${r.slots} executor slots: all created in | ${fmt(r.allCreatedS, 2)} s |`,
    `| first create to last COMPLETED | ${fmt(r.wallS, 2)} s = ${fmt(r.rate)} recipients/s |`,
    `| completion time per task, create -> COMPLETED: p50 / p99 / max | ${ms(r.completion)} |`,
    `| real-time task (1,000 online recipients) create -> first delivery while they ran, ${r.probes} tasks one after another: p50 / p99 / max | ${r.probe ? ms(r.probe) : 'no probe ran'} |`,
    `| normal tasks still live when the first / last probe started | ${r.liveAtProbe ? `${fmt(r.liveAtProbe.first)} / ${fmt(r.liveAtProbe.last)}` : '-'} |`,
    `| delivered / offline / filtered, all normal tasks | ${fmt(r.delivered)} / ${fmt(r.offline)} / ${fmt(r.removed)} |`,
  ].join('\n');
}

async function main() {
  const options = {
    tasks: Number(arg('--tasks', 1000)),
    recipients: Number(arg('--recipients', 10_000)),
    online: Number(arg('--online', 0.3)),
    probes: Number(arg('--probes', 30)),
    log: (line) => process.stderr.write(line + '\n'),
  };
  for (const k of ['tasks', 'recipients'])
    if (!(Number.isInteger(options[k]) && options[k] >= 1)) throw new Error(`--${k}: a positive integer`);
  if (!(Number.isInteger(options.probes) && options.probes >= 0)) throw new Error('--probes: a non-negative integer');
  if (!(options.online >= 0 && options.online <= 1)) throw new Error('--online: a share between 0 and 1');
  const result = await runConcurrent(options);
  const text = [
    `### Concurrent small tasks, embedded profile — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. Command: \`node bench/concurrent.js --tasks ${options.tasks} --recipients ${options.recipients} --online ${options.online} --probes ${options.probes}\`.`,
    '',
    concurrentTable(result),
    '',
  ].join('\n');
  process.stdout.write(text + '\n');
  if (process.argv.includes('--record')) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + text);
}

module.exports = { runConcurrent, concurrentTable };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`bench: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
