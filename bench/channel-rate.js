#!/usr/bin/env node
/**
 * The highest rate each paced channel sustains end to end on this machine
 * (issue 20, "Done when"): an embedded cluster (every tier real: API,
 * scheduler, dispatcher, two executors, in one process) broadcasts
 * `--recipients` online recipients through
 *   - webhook: the webhook channel to the reference WebhookReceiver
 *     (@herald/testing) in a worker thread (its own event loop, as a separate
 *     service would be), accepting everything;
 *   - kafka: the Kafka topic channel as the production profile opens it
 *     (openDeliveryGateway: acks=all, one record per batch) to librdkafka's
 *     mock cluster (TestKafka, 3 brokers, in its own kcat process).
 * Each channel's pacing is opened wide (maxRate 10^8, starting there), so
 * the figure is what the channel and the tiers carry, not a configured limit.
 * Measured at the gateway: recipients accepted over the time from the first
 * batch handed to the channel to the last one accepted; also the task's time
 * from creation to COMPLETED (pre-processing included).
 *
 *   node bench/channel-rate.js [--recipients 5000000] [--batch 4096] [--only webhook|kafka] [--record]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { Worker, isMainThread, parentPort } = require('node:worker_threads');
const { machine, commit, arg, fmt, loadAverage } = require('./lib');

if (isMainThread)
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
else
  serveInWorker().catch((error) => {
    console.error(error);
    process.exit(1);
  });

/** The worker: the reference webhook, accepting everything, counting recipients and dropping what it records. */
async function serveInWorker() {
  const { WebhookReceiver } = require('@herald/testing');
  const receiver = await WebhookReceiver.start();
  let recipients = 0;
  receiver.answerBy((request) => {
    recipients += request.body.uins.length;
    return { status: 200 };
  });
  // A reference receiver keeps every request; a bench of millions must not.
  const trim = setInterval(() => {
    receiver.requests.length = 0;
    receiver.accepted.length = 0;
  }, 50);
  parentPort.on('message', async (message) => {
    if (message !== 'stop') return;
    clearInterval(trim);
    await receiver.stop();
    parentPort.postMessage({ recipients });
  });
  parentPort.postMessage({ url: receiver.url });
}

/** Wraps a gateway to time the first batch handed to it and the last one it accepted. */
function timed(gateway) {
  const t = { first: undefined, last: undefined, recipients: 0, failures: 0 };
  return {
    t,
    gateway: {
      async deliver(delivery) {
        t.first ??= performance.now();
        try {
          const result = await gateway.deliver(delivery);
          t.last = performance.now();
          t.recipients += delivery.uins.length - (result?.rejected?.length ?? 0);
          return result;
        } catch (error) {
          t.failures++;
          throw error;
        }
      },
      close: () => gateway.close(),
    },
  };
}

const WIDE_OPEN = { initialRate: 1e8, maxRate: 1e8, increasePerSecond: 0 };

async function broadcast(channel, o, options, gateway) {
  const { startEmbeddedCluster } = require('@herald/embedded');
  const { syntheticAudience } = require('@herald/audience');
  const { encodeRecipientList } = require('@herald/core/recipient-list');
  const { authHeaders } = require('@herald/testing');
  const cluster = await startEmbeddedCluster(options, { gateway: gateway.gateway });
  try {
    const audience = syntheticAudience({
      recipients: o.recipients,
      onlineFraction: 1,
      uinLimit: 2 ** options.uinSpaceBits,
      seed: 11,
    });
    for (const uin of audience.online) cluster.online.setOnline(uin, true);
    const headers = authHeaders();
    const listed = await fetch(`${cluster.url}/api/v1/lists?accountId=acme`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body: encodeRecipientList(audience.list),
    }).then((r) => r.json());
    const createdAt = performance.now();
    const created = await fetch(`${cluster.url}/api/v1/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        accountId: 'acme',
        listId: listed.id,
        content: { title: 'Bench', body: 'Hello from Herald' },
        // A broadcast this large asks for its count to be confirmed (docs/api.md).
        confirm: audience.list.length,
      }),
    }).then((r) => r.json());
    if (created.id === undefined)
      throw new Error(`task not created: ${JSON.stringify(created)} (list: ${JSON.stringify(listed)})`);
    let task;
    for (;;) {
      task = await cluster.store.getTask(created.id);
      if (['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const endToEnd = (performance.now() - createdAt) / 1000;
    const { t } = gateway;
    const seconds = (t.last - t.first) / 1000;
    return {
      channel,
      state: task.state,
      delivered: task.report.delivered,
      online: audience.online.length,
      accepted: t.recipients,
      failures: t.failures,
      seconds,
      rate: t.recipients / seconds,
      endToEnd,
    };
  } finally {
    await cluster.stop();
  }
}

function baseOptions(o, dataDir) {
  const { TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');
  return {
    dataDir,
    uinSpaceBits: 24,
    http: { port: 0 },
    auth: TEST_AUTH_OPTIONS,
    tasks: TEST_TASK_OPTIONS,
    executor: { ids: ['executor-1', 'executor-2'] },
    load: { memoryBytesPerRecipient: 1 << 20 }, // units split over both executors
    dispatcher: { batchSize: o.batch, unitSize: 100_000 },
  };
}

async function webhookRun(o) {
  const { compileConfig } = require('@herald/core/config');
  const { createDeliveryGateway } = require('@herald/executor');
  const worker = new Worker(__filename);
  const next = () => new Promise((resolve) => worker.once('message', resolve));
  const { url } = await next();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-rate-'));
  try {
    const options = {
      ...baseOptions(o, dataDir),
      delivery: { kind: 'webhook', webhook: { url, timeoutMs: 30_000, pacing: WIDE_OPEN } },
    };
    const config = compileConfig(options);
    const gateway = timed(createDeliveryGateway(config.delivery, path.join(dataDir, 'unused')));
    const result = await broadcast('webhook', o, options, gateway);
    worker.postMessage('stop');
    result.receiverCounted = (await next()).recipients;
    return result;
  } finally {
    await worker.terminate();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function kafkaRun(o) {
  const { compileConfig } = require('@herald/core/config');
  const { openDeliveryGateway } = require('@herald/production');
  const { TestKafka } = require('@herald/testing');
  const kafka = await TestKafka.start();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-rate-'));
  try {
    const options = {
      ...baseOptions(o, dataDir),
      delivery: {
        kind: 'kafka',
        kafka: { brokers: kafka.brokers, topic: `rate-${process.pid}`, keyShiftBits: 16, pacing: WIDE_OPEN },
      },
    };
    const gateway = timed(await openDeliveryGateway(compileConfig(options), 'executor-1', dataDir));
    return await broadcast('kafka', o, options, gateway);
  } finally {
    await kafka.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main() {
  const o = {
    recipients: Number(arg('--recipients', 5_000_000)),
    batch: Number(arg('--batch', 4096)),
    only: arg('--only', ''),
    record: process.argv.includes('--record'),
  };
  const load = [loadAverage()];
  const runs = [];
  if (o.only !== 'kafka') runs.push(await webhookRun(o));
  if (o.only !== 'webhook') runs.push(await kafkaRun(o));
  load.push(loadAverage());
  const goal = { webhook: 300_000, kafka: 1_000_000 };
  const section = [
    `### Channel rates end to end — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: \`${machine()}\`. 1-minute load average ${load.map((l) => l.toFixed(2)).join(' before, ')} after; the machine was shared with other sessions' builds and tests at the time, so these are lower bounds. Embedded cluster (API, scheduler, dispatcher, two executors in one process), pacing opened wide; ${fmt(o.recipients)} recipients, all online, batches of ${fmt(o.batch)}. Command: \`node bench/channel-rate.js --recipients ${o.recipients} --batch ${o.batch}\`.`,
    '',
    '| channel | receiver | end | delivered | failed sends | first batch to last accepted | **recipients/s** | goal | creation to COMPLETED |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${r.channel} | ${r.channel === 'webhook' ? `WebhookReceiver, worker thread (counted ${fmt(r.receiverCounted)})` : 'librdkafka mock, 3 brokers, acks=all'} | ${r.state} | ${fmt(r.delivered)} of ${fmt(r.online)} | ${fmt(r.failures)} | ${fmt(r.seconds, 2)} s | **${fmt(r.rate)}** | ${fmt(goal[r.channel])} | ${fmt(r.endToEnd, 2)} s |`,
    ),
    '',
  ].join('\n');
  process.stdout.write(section + '\n');
  if (o.record) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), '\n' + section);
}
