#!/usr/bin/env node
/*
 * What purging a finished task's delivery records costs (docs/recipient-truth.md,
 * "Purging a task's records"), on the embedded profile's pieces in one
 * process: a LevelDeliveryRecordLog holding, for each of RUNS x 2 completed
 * tasks, BATCHES batch records of 4,096 recipients and LOGINS login outcomes
 * (and a neighbour task's records, which must stay), and the interface's
 * API server on a LevelTaskStore. The tasks are purged in turn, alternating
 * DELETE /api/v1/tasks/:id/records over HTTP and DeliveryRecordLog.purgeTask
 * called directly (what the route adds: reading the task, the access guard,
 * the audit entry), each with the process's CPU time (process.cpuUsage:
 * server and client are this process), wall time, and its RSS before and at
 * most during the purge (sampled every 20 ms); then each again (nothing left:
 * zeros). Uses the built packages (`npx tsc -b` first).
 *
 *   node bench/records-purge.js [BATCHES=24415] [LOGINS=1000000] [RUNS=2]
 */
const { mkdtemp, rm } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { compileConfig } = require('@herald/core/config');
const { noopLogger, systemClock } = require('@herald/core/ports');
const { ListRepository } = require('@herald/audience');
const { createApiServer } = require('@herald/interface');
const { LevelAccessStore, LevelDeliveryRecordLog, LevelTaskStore } = require('@herald/store-level');
const { TEST_ADMIN_TOKEN } = require('@herald/testing');
const { fmt, loadAverage } = require('./lib');

const BATCHES = Number(process.argv[2] ?? 24_415);
const LOGINS = Number(process.argv[3] ?? 1_000_000);
const RUNS = Number(process.argv[4] ?? 2);
const BATCH = 4096;
const ONLINE = new Uint8Array(BATCH / 8).fill(0b1011_0110);
const T0 = Date.now();

/** A completed task in the store: the purge refuses any other. */
async function completedTask(store) {
  const created = await store.createTask(
    {
      accountId: 'acme',
      listId: 'l_1',
      content: { body: 'x' },
      contentCrc: 1,
      priority: 'normal',
      sendAt: T0,
      expiresAt: T0 + 3_600_000,
      listCount: BATCHES * BATCH,
    },
    T0,
  );
  let task = await store.claimTask(created.id, 'bench', T0);
  const patches = {
    preprocessed: {
      filteredListId: `f_${task.id}`,
      report: { total: BATCHES * BATCH, kept: BATCHES * BATCH, units: 1 },
    },
  };
  for (const event of ['enqueue', 'admit', 'preprocessed', 'dispatched', 'complete'])
    task = await store.transitionTask(task.id, { epoch: task.epoch }, event, patches[event] ?? {}, T0);
  return task;
}

/** The task's records as an executor writes them: batches in groups of 3, outcomes 10,000 a write. */
async function writeRecords(log, taskId) {
  for (let from = 0; from < BATCHES * BATCH; from += 3 * BATCH) {
    const group = [];
    for (let b = from; b < Math.min(from + 3 * BATCH, BATCHES * BATCH); b += BATCH)
      group.push({ taskId, from: b, count: BATCH, online: ONLINE, executor: 'executor-1', at: T0 });
    await log.recordBatches(group);
  }
  const stride = Math.max(1, Math.floor(2 ** 32 / LOGINS));
  for (let i = 0; i < LOGINS; i += 10_000) {
    const outcomes = [];
    for (let j = i; j < Math.min(i + 10_000, LOGINS); j++)
      outcomes.push({ taskId, uin: j * stride, outcome: j % 7 === 0 ? 'expired' : 'delivered', at: T0 });
    await log.recordLogins(outcomes);
  }
}

/** CPU (user + system), wall time and RSS (before, highest during) of `work`. */
async function measured(work) {
  const rssBefore = process.memoryUsage.rss();
  let rssPeak = rssBefore;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage.rss())), 20);
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  const result = await work();
  const wallMs = Number(process.hrtime.bigint() - start) / 1e6;
  const used = process.cpuUsage(cpu);
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  return { result, cpuMs: (used.user + used.system) / 1000, wallMs, rssBefore, rssPeak };
}

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-bench-records-purge-'));
  const log = await LevelDeliveryRecordLog.open(path.join(dir, 'records'));
  const store = await LevelTaskStore.open(path.join(dir, 'tasks'));
  const access = await LevelAccessStore.open(path.join(dir, 'access'));
  const app = createApiServer({
    config: compileConfig({
      dataDir: dir,
      auth: { bootstrapAdminToken: TEST_ADMIN_TOKEN, rateLimit: { perSecond: 0 } },
    }),
    store,
    access,
    lists: new ListRepository(path.join(dir, 'lists')),
    deliveryRecords: log,
    toScheduler: { send: async () => {}, close() {} },
    clock: systemClock,
    logger: noopLogger,
    blacklistIds: { global: 'b_global', forAccount: (accountId) => `b_${accountId}` },
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  const viaApi = async (taskId) => {
    const response = await fetch(`${base}/api/v1/tasks/${taskId}/records`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    });
    const body = await response.json();
    if (response.status !== 200) throw new Error(`DELETE answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  };
  const direct = async (taskId) => ({ taskId, ...(await log.purgeTask(taskId)) });
  try {
    const neighbour = await completedTask(store);
    await writeRecords(log, neighbour.id);
    const tasks = [];
    const writeStart = Date.now();
    for (let i = 0; i < RUNS * 2; i++) {
      const task = await completedTask(store);
      await writeRecords(log, task.id);
      tasks.push(task.id);
    }
    const writtenS = (Date.now() - writeStart) / 1000;
    console.log(
      `records-purge: ${RUNS * 2} tasks of ${fmt(BATCHES)} batch records and ${fmt(LOGINS)} login outcomes each (+ a neighbour), written in ${fmt(writtenS, 1)} s; load ${fmt(loadAverage(), 2)}`,
    );
    console.log(
      '| run | how | removed (batches, logins) | CPU ms | wall ms | RSS before MiB | RSS peak MiB | again: CPU ms, answer |',
    );
    console.log('|---|---|---|---|---|---|---|---|');
    const MiB = 1024 * 1024;
    for (const [i, taskId] of tasks.entries()) {
      const how = i % 2 === 0 ? 'API' : 'direct';
      const purge = how === 'API' ? viaApi : direct;
      const first = await measured(() => purge(taskId));
      const again = await measured(() => purge(taskId));
      if (first.result.batches !== BATCHES || first.result.logins !== LOGINS)
        throw new Error(`task ${taskId}: removed ${JSON.stringify(first.result)}`);
      console.log(
        `| ${Math.floor(i / 2) + 1} | ${how} | ${fmt(first.result.batches)}, ${fmt(first.result.logins)} | ${fmt(first.cpuMs)} | ${fmt(first.wallMs)} | ${fmt(first.rssBefore / MiB)} | ${fmt(first.rssPeak / MiB)} | ${fmt(again.cpuMs, 1)}, ${again.result.batches}/${again.result.logins} |`,
      );
    }
    // The neighbour's records are untouched.
    const kept = await log.loginCounts(neighbour.id);
    if (kept.delivered + kept.expired !== LOGINS || (await log.batchAt(neighbour.id, 0)) === undefined)
      throw new Error('the neighbour task lost records');
    console.log(`neighbour task kept its ${fmt(LOGINS)} outcomes and its batches; load ${fmt(loadAverage(), 2)}`);
  } finally {
    await app.close();
    await store.close();
    await access.close();
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
