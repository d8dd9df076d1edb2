#!/usr/bin/env node
/*
 * What the production funnel's login counts cost (docs/recipient-truth.md,
 * "On the production profile"): two executors' LevelDeliveryRecordLogs, each
 * holding OUTCOMES login outcomes of one task and one batch record per unit
 * it delivered, served on real management endpoints, read by
 * ClusterDeliveryRecords.loginCounts as an interface does:
 *
 * - "no unit moved": each unit's records are on its executor only, so the
 *   answer is each executor's counts (one read each) plus one probe per unit
 *   and other executor;
 * - "a unit moved": one unit has records on both executors, so both
 *   executors' outcomes are walked merged by uin (what counting each
 *   recipient once costs after a failover);
 *
 * each RUNS times, alternating, with the interface side's CPU time and wall
 * time. Uses the built packages (`npx tsc -b` first).
 *
 *   node bench/login-counts.js [OUTCOMES=1000000] [UNITS=96] [RUNS=3]
 */
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
const TOKEN = 'hmt_bench-login-counts';
const HOSTS = ['executor-1', 'executor-2'];
const UNIT_SIZE = 1 << 20;
const KINDS = ['delivered', 'expired', 'over_frequency'];

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-login-counts-'));
  const logs = [];
  const servers = [];
  const addresses = {};
  try {
    for (const [h, host] of HOSTS.entries()) {
      const log = await LevelDeliveryRecordLog.open(path.join(dir, `delivery-records-${host}`));
      logs.push(log);
      // Task 1: units alternate between the executors; task 2 the same, and unit 1 (executor-2's) also has a
      // record on executor-1 (it had the unit before a failover).
      for (const task of [1, 2])
        for (let unit = h; unit < UNITS; unit += HOSTS.length) await log.recordBatch(record(task, unit, host));
      if (h === 0) await log.recordBatch(record(2, 1, host));
      // Outcomes of interleaved uins, the two tasks alike, written in steps.
      for (let from = 0; from < OUTCOMES; from += 50_000) {
        const step = [];
        for (let i = from; i < Math.min(OUTCOMES, from + 50_000); i++)
          for (const task of [1, 2]) step.push({ taskId: task, uin: 2 * i + h, outcome: KINDS[i % 3], at: i });
        await log.recordLogins(step);
      }
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
      servers.push(server);
      addresses[host] = server.address;
    }
    const units = (task) =>
      Array.from({ length: UNITS }, (_, unit) => ({
        taskId: task,
        unitNo: unit,
        start: unit * UNIT_SIZE,
        end: (unit + 1) * UNIT_SIZE,
        checkpoint: (unit + 1) * UNIT_SIZE,
        executorId: HOSTS[unit % HOSTS.length],
      }));
    const client = new ExecutorRecordsClient(HOSTS, addresses, TOKEN, noopLogger, 60_000);
    const cluster = new ClusterDeliveryRecords(client, { listUnits: async (task) => units(task) });
    console.log(
      `login counts: ${OUTCOMES} outcomes per executor, ${HOSTS.length} executors, ${UNITS} units, load ${loadAverage()}`,
    );
    for (let run = 0; run < RUNS; run++)
      for (const [task, name] of [
        [1, 'no unit moved'],
        [2, 'a unit moved'],
      ]) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        const counts = await cluster.loginCounts(task);
        const wall = performance.now() - started;
        const used = process.cpuUsage(cpu);
        const total = counts.delivered + counts.expired + counts.over_frequency;
        if (total !== HOSTS.length * OUTCOMES) throw new Error(`counted ${total} of ${HOSTS.length * OUTCOMES}`);
        console.log(
          `  run ${run + 1} ${name}: ${wall.toFixed(0)} ms wall, ${((used.user + used.system) / 1000).toFixed(0)} ms CPU (interface side), load ${loadAverage()}`,
        );
      }
  } finally {
    for (const server of servers) await server.close();
    for (const log of logs) await log.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function record(taskId, unit, executor) {
  const uins = Uint32Array.from({ length: 8 }, (_, i) => i);
  return { taskId, from: unit * UNIT_SIZE, count: 8, online: onlineBitsOf(uins, uins), executor, at: 1 };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
