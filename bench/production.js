#!/usr/bin/env node
/**
 * The production profile on this host: every tier its own process (1
 * interface, 2 schedulers, 1 dispatcher, 2 executors, 1 controller), MariaDB,
 * a standalone ZooKeeper and librdkafka's mock Kafka cluster, CURVE on every
 * link. Measures
 *   - one broadcast's fan-out rate end to end (task creation to COMPLETED);
 *   - task create -> first delivery latency over small tasks created one after
 *     another (first delivery = the first batch on the reports topic, stamped
 *     by the executor when the batch was delivered).
 * With --record the table is appended to RESULTS.md.
 *
 *   node bench/production.js [--recipients 1000000] [--tasks 100] [--record]
 */
const { randomBytes } = require('node:crypto');
const { appendFile } = require('node:fs/promises');
const path = require('node:path');
const { encodeRecipientList, TOPICS } = require('@herald/core');
const { syntheticAudience } = require('@herald/audience');
const { makeTempDir, ProcessCluster, TestZooKeeper, TestKafka, ensureSharedMariaDb } = require('@herald/testing');
const { percentiles, machine, commit, arg } = require('./lib');

const DONE = ['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'];

async function main() {
  const recipients = Number(arg('--recipients', 1_000_000));
  const tasks = Number(arg('--tasks', 100));
  const zk = await TestZooKeeper.start();
  const kafkaServer = await TestKafka.start();
  process.env.HERALD_TEST_MYSQL_URL = await ensureSharedMariaDb();
  process.env.HERALD_TEST_ZK = zk.connectionString;
  process.env.HERALD_TEST_KAFKA_BROKERS = kafkaServer.brokers.join(',');
  const dir = await makeTempDir('herald-bench-production-');
  const tag = randomBytes(4).toString('hex');
  const names = { database: `herald_bench_${tag}`, zkRoot: `/herald-bench-${tag}`, topicPrefix: `bench${tag}.` };
  const cluster = new ProcessCluster(dir.path, { interfaces: 1, schedulers: 2, dispatchers: 1, executors: 2, controllers: 1 }, names);
  try {
    await cluster.configure({ uinSpaceBits: 32, dispatcher: { batchSize: 4096, unitSize: 1 << 19 }, offline: { rangeBits: 20 }, scheduler: { slots: 8, tickMs: 100 } });
    await cluster.keysAndSchema();
    const audience = syntheticAudience({ recipients, onlineFraction: 0.3, uinLimit: 2 ** 32, seed: 42 });
    await cluster.publishOnline(audience.online);
    await cluster.startAll();
    await cluster.waitForPresence();
    const api = async (p, init) => (await fetch(cluster.url + p, init)).json();
    const binary = { 'content-type': 'application/octet-stream' };
    const json = { 'content-type': 'application/json' };

    // Fan-out.
    await api('/api/v1/blacklists/global', { method: 'PUT', headers: binary, body: encodeRecipientList(audience.blacklist) });
    const list = await api('/api/v1/lists?accountId=bench', { method: 'POST', headers: binary, body: encodeRecipientList(audience.list) });
    const t0 = performance.now();
    const created = await api('/api/v1/tasks', { method: 'POST', headers: json, body: JSON.stringify({ accountId: 'bench', listId: list.id, content: { body: 'fan-out' } }) });
    let task;
    do {
      await new Promise((r) => setTimeout(r, 20));
      task = await api(`/api/v1/tasks/${created.id}`);
    } while (!DONE.includes(task.state));
    const fanoutS = (performance.now() - t0) / 1000;
    if (task.state !== 'COMPLETED') throw new Error(`fan-out task ended ${task.state}: ${JSON.stringify(task.error)}`);

    // Latency: first report per task on the reports topic.
    const firstReport = new Map();
    const consumer = cluster.kafka().consumer({ groupId: `bench-reports-${tag}` });
    await consumer.connect();
    await consumer.subscribe({ topic: names.topicPrefix + TOPICS.reports, fromBeginning: false });
    await consumer.run({
      eachMessage: async ({ message }) => {
        const { taskId } = JSON.parse(message.value.toString());
        if (!firstReport.has(taskId)) firstReport.set(taskId, Number(message.timestamp));
      },
    });
    const small = Array.from({ length: 1000 }, (_, i) => audience.online[i]);
    const smallList = await api('/api/v1/lists?accountId=bench', { method: 'POST', headers: binary, body: encodeRecipientList(small) });
    // Warm-up task: the consumer group is joined once it sees this one.
    const warm = await api('/api/v1/tasks', { method: 'POST', headers: json, body: JSON.stringify({ accountId: 'bench', listId: smallList.id, content: { body: 'warm-up' } }) });
    while (!firstReport.has(warm.id)) await new Promise((r) => setTimeout(r, 20));
    const latencies = [];
    for (let i = 0; i < tasks; i++) {
      const started = Date.now();
      const t = await api('/api/v1/tasks', { method: 'POST', headers: json, body: JSON.stringify({ accountId: 'bench', listId: smallList.id, content: { body: `latency ${i}` } }) });
      while (!firstReport.has(t.id)) await new Promise((r) => setTimeout(r, 2));
      latencies.push(firstReport.get(t.id) - started);
    }
    await consumer.disconnect();
    const p = percentiles(latencies);
    const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
    const table = [
      `### Production profile on one host — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
      '',
      `Machine: ${machine()}. Processes: 1 interface, 2 schedulers, 1 dispatcher, 2 executors, 1 controller; MariaDB 10.11, ZooKeeper 3.8 standalone, librdkafka mock Kafka (3 brokers); CURVE on every link. Command: \`node bench/production.js --recipients ${recipients} --tasks ${tasks}\`.`,
      '',
      '| measure | value |',
      '|---|---:|',
      `| fan-out of ${fmt(recipients)} recipients, create to COMPLETED | ${fmt(fanoutS, 2)} s = ${fmt(recipients / fanoutS)} recipients/s |`,
      `| delivered / offline / filtered | ${fmt(task.report.delivered)} / ${fmt(task.report.offline)} / ${fmt(Object.values(task.report.removed).reduce((a, b) => a + b, 0))} |`,
      `| create -> first delivery, ${tasks} tasks of 1,000 recipients: p50 / p99 / max | ${fmt(p.p50)} / ${fmt(p.p99)} / ${fmt(p.max)} ms |`,
      '',
    ].join('\n');
    process.stdout.write(table + '\n');
    if (process.argv.includes('--record')) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + table);
  } finally {
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

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
