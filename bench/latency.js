#!/usr/bin/env node
/**
 * Task create -> first delivery latency on the embedded profile: tasks are
 * created one after another over the HTTP API (each with its own content, so
 * the no-resend filter keeps every recipient), and the time from sending the
 * create request to the first batch reaching the delivery gateway is
 * recorded. Prints p50/p99/max and, with --record, appends to RESULTS.md.
 *
 *   node bench/latency.js [--tasks 300] [--recipients 1000] [--record]
 *
 * bench/suite.js calls runEmbeddedLatency directly.
 */
const { mkdtemp, rm, appendFile } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { encodeRecipientList } = require('@herald/core/recipient-list');
const { FileDeliverySink } = require('@herald/executor');
const { startEmbeddedCluster } = require('@herald/embedded');
const { authHeaders, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');
const { percentiles, machine, commit, arg } = require('./lib');

/** Creates `tasks` tasks one after another on a fresh embedded cluster; returns create -> first delivery p50/p99/max in ms. */
async function runEmbeddedLatency({ tasks, recipients }) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-latency-'));
  const firstDelivery = new Map();
  const sink = new FileDeliverySink(path.join(dir, 'deliveries'));
  const gateway = {
    deliver: async (delivery) => {
      if (!firstDelivery.has(delivery.taskId)) firstDelivery.set(delivery.taskId, performance.now());
      await sink.deliver(delivery);
    },
    close: () => sink.close(),
  };
  const cluster = await startEmbeddedCluster(
    {
      dataDir: path.join(dir, 'data'),
      http: { port: 0 },
      uinSpaceBits: 24,
      scheduler: { slots: 8 },
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
      tasks: TEST_TASK_OPTIONS,
    },
    { gateway },
  );
  try {
    for (let uin = 0; uin < recipients; uin++) cluster.online.setOnline(uin, true);
    const list = await (
      await fetch(`${cluster.url}/api/v1/lists?accountId=bench`, {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', ...authHeaders() },
        body: encodeRecipientList(Array.from({ length: recipients }, (_, i) => i)),
      })
    ).json();
    const latencies = [];
    for (let i = 0; i < tasks; i++) {
      const started = performance.now();
      const response = await fetch(`${cluster.url}/api/v1/tasks`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders() },
        body: JSON.stringify({
          accountId: 'bench',
          listId: list.id,
          content: { body: `latency ${i}` },
          confirm: list.count,
        }),
      });
      const task = await response.json();
      while (!firstDelivery.has(task.id)) await new Promise((r) => setImmediate(r));
      latencies.push(firstDelivery.get(task.id) - started);
    }
    return { tasks, recipients, ...percentiles(latencies) };
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const tasks = Number(arg('--tasks', 300));
  const recipients = Number(arg('--recipients', 1000));
  const p = await runEmbeddedLatency({ tasks, recipients });
  const table = [
    `### Task create -> first delivery, embedded profile — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. ${tasks} tasks created one after another, ${recipients} recipients each, all online. Command: \`node bench/latency.js --tasks ${tasks} --recipients ${recipients}\`.`,
    '',
    '| p50 (ms) | p99 (ms) | max (ms) |',
    '|---:|---:|---:|',
    `| ${p.p50.toFixed(1)} | ${p.p99.toFixed(1)} | ${p.max.toFixed(1)} |`,
    '',
  ].join('\n');
  process.stdout.write(table + '\n');
  if (process.argv.includes('--record')) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + table);
}

module.exports = { runEmbeddedLatency };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`bench: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
