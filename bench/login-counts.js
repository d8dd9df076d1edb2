#!/usr/bin/env node
/*
 * What the production funnel's login counts cost (docs/recipient-truth.md,
 * "On the production profile"): two executors' LevelDeliveryRecordLogs, each
 * holding OUTCOMES login outcomes of a task and one batch record per unit it
 * delivered, served on real management endpoints, read by
 * ClusterDeliveryRecords.loginCounts as an interface does:
 *
 * - "no unit moved": each unit's records are on its executor only, so the
 *   answer is each executor's counts (one read each) plus one probe per unit
 *   and other executor;
 * - "units moved": MOVED (a share of the units, at least one) also have a
 *   record and outcomes on the other executor, which had them before a
 *   failover: the first quarter of such a unit's outcomes is on the earlier
 *   executor, the rest on the unit's current one, and OVERLAP of them (a few
 *   batches in flight at the failover) on both, the later one's newer;
 *
 * each RUNS times, alternating, a new interface's first ask and the same
 * one asking again, with the interface's CPU time, the executors' (each a
 * process of its own, writing its records first) and the wall time. As in a list filtered in uin order, each unit holds its own range of
 * uins (LAYOUT=ranges), a settled recipient every STRIDE uins (64: 2 x 10^7
 * settled over a fifth of the 2^32 uin space); LAYOUT=interleaved gives each executor every other
 * uin instead (the worst case: every uin range holds both executors'
 * outcomes). Uses the built packages (`npx tsc -b` first).
 *
 *   node bench/login-counts.js [OUTCOMES=1000000] [UNITS=96] [RUNS=3] [MOVED=0] [LAYOUT=ranges] [OVERLAP=8192] [STRIDE=64]
 */
const { fork } = require('node:child_process');
const { mkdtemp, rm } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { onlineBitsOf } = require('@herald/core/fate');
const { noopLogger } = require('@herald/core/ports');
const { LevelDeliveryRecordLog } = require('@herald/store-level');
const {
  ClusterDeliveryRecords,
  ExecutorRecordsClient,
  hashManagementToken,
  startManagementServer,
} = require('@herald/production');
const { loadAverage } = require('./lib');

const OUTCOMES = Number(process.argv[2] ?? 1_000_000);
const UNITS = Number(process.argv[3] ?? 96);
const RUNS = Number(process.argv[4] ?? 3);
const MOVED = Number(process.argv[5] ?? 0);
const LAYOUT = process.argv[6] ?? 'ranges';
const OVERLAP_ASKED = Number(process.argv[7] ?? 8192);
const STRIDE = Number(process.argv[8] ?? 64);
const TOKEN = 'hmt_bench-login-counts';
const HOSTS = ['executor-1', 'executor-2'];
const UNIT_SIZE = 1 << 20;
const KINDS = ['delivered', 'expired', 'over_frequency'];
/** Outcomes of one unit, and the uins a unit's range spans (every STRIDE-th uin has an outcome). */
const PER_UNIT = Math.ceil((OUTCOMES * HOSTS.length) / UNITS);
const SPAN = STRIDE * PER_UNIT;
const SPLIT = Math.floor(PER_UNIT / 4);
const OVERLAP = Math.min(OVERLAP_ASKED, PER_UNIT - SPLIT);
const STILL = 1;
const MOVING = 2;

if (!['ranges', 'interleaved'].includes(LAYOUT)) throw new Error(`LAYOUT must be ranges or interleaved, not ${LAYOUT}`);
if (SPAN * UNITS > 2 ** 32) throw new Error('too many outcomes for the uin space: fewer OUTCOMES or UNITS');

const executorOf = (unit) => unit % HOSTS.length;
const movedUnits = () => {
  const count = Math.max(1, Math.round(MOVED * UNITS));
  return new Set(Array.from({ length: count }, (_, i) => Math.floor((i * UNITS) / count) | 1));
};

/** Which (host, j) hold outcome j of a unit: its executor all (not moved), or split with an overlap (moved). */
function holders(unit, moved, j) {
  const current = executorOf(unit);
  if (!moved) return [current];
  const earlier = (current + 1) % HOSTS.length;
  if (j < SPLIT) return [earlier];
  if (j < SPLIT + OVERLAP) return [earlier, current];
  return [current];
}

function uinOf(unit, j) {
  if (LAYOUT === 'ranges') return unit * SPAN + STRIDE * j;
  return HOSTS.length * (unit * PER_UNIT + j) + executorOf(unit);
}

async function writeTask(log, h, task, moved) {
  for (let unit = 0; unit < UNITS; unit++) {
    const isMoved = moved.has(unit);
    if (executorOf(unit) === h || isMoved) await log.recordBatch(record(task, unit, HOSTS[h]));
  }
  let step = [];
  for (let unit = 0; unit < UNITS; unit++)
    for (let j = 0; j < PER_UNIT; j++) {
      const at = holders(unit, moved.has(unit), j);
      const index = at.indexOf(h);
      if (index < 0) continue;
      step.push({ taskId: task, uin: uinOf(unit, j), outcome: KINDS[(j + index) % 3], at: j + index * 1e9 });
      if (step.length === 50_000) {
        await log.recordLogins(step);
        step = [];
      }
    }
  if (step.length > 0) await log.recordLogins(step);
}

/** One executor's process: writes its records, serves them, answers its CPU time when asked, closes when told. */
async function serveExecutor(h) {
  const host = HOSTS[h];
  const dir = await mkdtemp(path.join(tmpdir(), `herald-login-counts-${host}-`));
  const log = await LevelDeliveryRecordLog.open(path.join(dir, 'delivery-records'));
  const moved = movedUnits();
  await writeTask(log, h, STILL, new Set());
  await writeTask(log, h, MOVING, moved);
  const server = await startManagementServer(
    {
      id: host,
      tier: 'executor',
      status: () => ({}),
      drain: async () => undefined,
      metrics: async () => ({ contentType: 'text/plain', body: '' }),
      deliveryRecords: log,
    },
    { address: '127.0.0.1:0', faults: false, tokenHash: hashManagementToken(TOKEN), logger: noopLogger },
  );
  // The bench gone (killed, or failed): so is this executor.
  process.on('disconnect', () => rm(dir, { recursive: true, force: true }).finally(() => process.exit(1)));
  process.on('message', async (message) => {
    if (message === 'cpu') return process.send({ cpu: process.cpuUsage() });
    await server.close();
    await log.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send({ address: server.address });
}

/** Asks executor processes one message each and waits for their answers. */
function askAll(children, message) {
  return Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          child.once('message', resolve);
          child.send(message);
        }),
    ),
  );
}

async function main() {
  const setup = performance.now();
  const children = HOSTS.map((_, h) =>
    fork(__filename, process.argv.slice(2), { env: { ...process.env, LOGIN_COUNTS_EXECUTOR: String(h) } }),
  );
  try {
    const started = await Promise.all(
      children.map((child) => new Promise((resolve) => child.once('message', resolve))),
    );
    const addresses = Object.fromEntries(HOSTS.map((host, h) => [host, started[h].address]));
    const moved = movedUnits();
    const units = (task) =>
      Array.from({ length: UNITS }, (_, unit) => ({
        taskId: task,
        unitNo: unit,
        start: unit * UNIT_SIZE,
        end: (unit + 1) * UNIT_SIZE,
        checkpoint: (unit + 1) * UNIT_SIZE,
        executorId: HOSTS[executorOf(unit)],
      }));
    const logger = { ...noopLogger, warn: (message, fields) => console.error(message, fields) };
    const client = new ExecutorRecordsClient(HOSTS, addresses, TOKEN, logger, 60_000);
    console.log(
      `login counts: ${PER_UNIT * UNITS} recipients settled (${PER_UNIT} a unit), ${HOSTS.length} executors, ${UNITS} units, ` +
        `${moved.size} moved (${OVERLAP} outcomes of each on both), layout ${LAYOUT} (stride ${STRIDE}), written in ` +
        `${((performance.now() - setup) / 1000).toFixed(0)} s, load ${loadAverage()}`,
    );
    for (let run = 0; run < RUNS; run++)
      for (const [task, name] of [
        [STILL, 'no unit moved'],
        [MOVING, `${moved.size} unit(s) moved`],
      ]) {
        // A new interface's first ask (nothing remembered), then the same interface asking again.
        const cluster = new ClusterDeliveryRecords(client, { listUnits: async (t) => units(t) });
        for (const ask of ['first ask', 'asked again'])
          await timed(cluster, task, children, `run ${run + 1} ${name}, ${ask}`);
      }
  } finally {
    for (const child of children) if (child.connected) child.send('stop');
  }
}

async function timed(cluster, task, children, label) {
  const executorsBefore = await askAll(children, 'cpu');
  const cpu = process.cpuUsage();
  const started = performance.now();
  const counts = await cluster.loginCounts(task);
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const executorsAfter = await askAll(children, 'cpu');
  const executorMs = executorsAfter.map((after, h) => {
    const before = executorsBefore[h].cpu;
    return ((after.cpu.user - before.user + after.cpu.system - before.system) / 1000).toFixed(0);
  });
  const total = counts.delivered + counts.expired + counts.over_frequency;
  if (total !== PER_UNIT * UNITS) throw new Error(`counted ${total} of ${PER_UNIT * UNITS}`);
  console.log(
    `  ${label}: ${wall.toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms interface CPU, ` +
      `executors' CPU ${executorMs.join(' + ')} ms, load ${loadAverage()}`,
  );
}

function record(taskId, unit, executor) {
  const uins = Uint32Array.from({ length: 8 }, (_, i) => i);
  return { taskId, from: unit * UNIT_SIZE, count: 8, online: onlineBitsOf(uins, uins), executor, at: 1 };
}

const serving = process.env.LOGIN_COUNTS_EXECUTOR;
(serving === undefined ? main() : serveExecutor(Number(serving))).catch((error) => {
  console.error(error);
  process.exit(1);
});
