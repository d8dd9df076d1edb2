#!/usr/bin/env node
/**
 * A broadcast through a throttling push service (issue 20, "Done when"): an
 * embedded cluster of two executors (every tier real, in one process) sends
 * `--recipients` online recipients through the webhook channel to the
 * reference WebhookReceiver (@herald/testing), whose rateLimitedPolicy
 * accepts at most `--limit` recipients/s in all and answers 429 + Retry-After
 * above it. Two runs:
 *   - known: the channel's maxRate set to the receiver's limit (an operator
 *     who knows the provider's quota), the pacing's defaults otherwise;
 *   - discovered: maxRate 5 x the limit: AIMD finds the limit from the 429s.
 * For each: the send rate after the first 10 s (accepted recipients over the
 * time from 10 s to the last accepted request) against the limit, the
 * fraction of requests throttled after the first 10 s, and the broadcast's
 * time (first request to last accepted) against limit-bound (recipients /
 * limit). The receiver keeps every request (it is small at these rates).
 *
 * With --production the cluster is the production profile instead (every
 * tier its own process, two executors each pacing to half the budget;
 * MariaDB, ZooKeeper and the mock Kafka started as bench/failover.js does).
 *
 * --timeline prints each run's recipients accepted per second (and its 429s,
 * as /n) on stderr.
 *
 *   node bench/channel-throttle.js [--recipients 400000] [--limit 20000] [--production] [--record] [--timeline]
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { syntheticAudience } = require('@herald/audience');
const { encodeRecipientList } = require('@herald/core/recipient-list');
const { startEmbeddedCluster } = require('@herald/embedded');
const {
  authHeaders,
  rateLimitedPolicy,
  TEST_AUTH_OPTIONS,
  TEST_TASK_OPTIONS,
  WebhookReceiver,
} = require('@herald/testing');
const { machine, commit, arg, fmt, loadAverage, startProductionServers } = require('./lib');

const SETTLE_MS = 10_000;
const UIN_SPACE_BITS = 24;

/** The cluster options both profiles share: the task split over two executors, the webhook to `url`. */
function clusterOptions(url, maxRate) {
  return {
    // No one host can hold the task by the planner's estimate: its units split over both executors.
    load: { memoryBytesPerRecipient: 1 << 20 },
    dispatcher: { batchSize: 500, unitSize: 10_000 },
    delivery: { kind: 'webhook', webhook: { url, timeoutMs: 10_000, pacing: { maxRate } } },
  };
}

/** An embedded cluster of two executors: its API's URL, and how to mark users online and stop it. */
async function embedded(url, maxRate) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-throttle-'));
  const cluster = await startEmbeddedCluster({
    dataDir,
    uinSpaceBits: UIN_SPACE_BITS,
    http: { port: 0 },
    auth: TEST_AUTH_OPTIONS,
    tasks: TEST_TASK_OPTIONS,
    executor: { ids: ['executor-1', 'executor-2'] },
    ...clusterOptions(url, maxRate),
  });
  return {
    url: cluster.url,
    async online(uins) {
      for (const uin of uins) cluster.online.setOnline(uin, true);
    },
    async stop() {
      await cluster.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A production cluster, every tier its own process (two executors), with its servers. */
async function production(url, maxRate) {
  const { ProcessCluster } = require('@herald/testing');
  const servers = await startProductionServers('throttle');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-throttle-'));
  const cluster = new ProcessCluster(
    dataDir,
    { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 0 },
    servers.names,
  );
  try {
    await cluster.configure({ uinSpaceBits: UIN_SPACE_BITS, ...clusterOptions(url, maxRate) });
    await cluster.keysAndSchema();
    await cluster.startAll();
  } catch (error) {
    await cluster.stopAll();
    await servers.stop();
    throw error;
  }
  return {
    url: cluster.url,
    async online(uins) {
      await cluster.publishOnline(uins);
      await cluster.waitForPresence();
    },
    async stop() {
      await cluster.stopAll();
      await servers.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Per second from the first request: recipients accepted, and 429s as `/n`, for --timeline. */
function timeline(times, start) {
  const seconds = [];
  for (const [at, recipients, throttled] of times) {
    const s = Math.floor((at - start) / 1000);
    seconds[s] ??= { accepted: 0, throttled: 0 };
    if (throttled) seconds[s].throttled++;
    else seconds[s].accepted += recipients;
  }
  return Array.from(seconds, (s) =>
    s === undefined ? '0' : `${s.accepted}${s.throttled ? `/${s.throttled}` : ''}`,
  ).join(' ');
}

/** The response's JSON body; an error naming the API's answer when it is not 2xx (a refused list or task must end the bench, not poll forever). */
async function okJson(response) {
  const body = await response.json();
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

async function run(label, o, maxRate) {
  const receiver = await WebhookReceiver.start();
  const times = []; // per request: [ms, recipients, throttled]
  const limit = rateLimitedPolicy({ recipientsPerSecond: o.limit });
  receiver.answerBy((request) => {
    const answer = limit.policy(request);
    times.push([Date.now(), request.body.uins.length, answer.status === 429]);
    return answer;
  });
  const cluster = await (o.production ? production : embedded)(receiver.url, maxRate);
  try {
    const audience = syntheticAudience({
      recipients: o.recipients,
      onlineFraction: 1,
      uinLimit: 2 ** UIN_SPACE_BITS,
      seed: 7,
    });
    await cluster.online(audience.online);
    const headers = authHeaders();
    const listed = await fetch(`${cluster.url}/api/v1/lists?accountId=acme`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', ...headers },
      body: encodeRecipientList(audience.list),
    }).then(okJson);
    const created = await fetch(`${cluster.url}/api/v1/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      // A list above the confirmation threshold is sent only when the request says how many it reaches.
      body: JSON.stringify({
        accountId: 'acme',
        listId: listed.id,
        content: { body: 'throttled bench' },
        confirm: audience.list.length,
      }),
    }).then(okJson);
    let task;
    for (;;) {
      task = await fetch(`${cluster.url}/api/v1/tasks/${created.id}`, { headers }).then(okJson);
      if (['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state)) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const accepted = new Set(receiver.accepted.flatMap((r) => r.body.uins));
    const acceptedCount = receiver.accepted.reduce((n, r) => n + r.body.uins.length, 0);
    const start = times[0][0];
    const lastAccepted = Math.max(...times.filter((t) => !t[2]).map((t) => t[0]));
    const after = times.filter((t) => t[0] >= start + SETTLE_MS);
    const afterRecipients = after.filter((t) => !t[2]).reduce((n, t) => n + t[1], 0);
    const afterSeconds = (lastAccepted - start - SETTLE_MS) / 1000;
    const total = (lastAccepted - start) / 1000;
    if (o.timeline) process.stderr.write(`${label}: ${timeline(times, start)}\n`);
    return {
      label,
      maxRate,
      state: task.state,
      exact: task.report.delivered === audience.online.length && accepted.size === audience.online.length,
      duplicates: acceptedCount - accepted.size,
      requests: times.length,
      throttled: limit.throttled,
      afterRequests: after.length,
      afterThrottled: after.filter((t) => t[2]).length,
      rateAfter: afterSeconds > 0 ? afterRecipients / afterSeconds : NaN,
      seconds: total,
      bound: audience.online.length / o.limit,
    };
  } finally {
    await cluster.stop();
    await receiver.stop();
  }
}

async function main() {
  const o = {
    recipients: Number(arg('--recipients', 400_000)),
    limit: Number(arg('--limit', 20_000)),
    production: process.argv.includes('--production'),
    record: process.argv.includes('--record'),
    timeline: process.argv.includes('--timeline'),
  };
  const load = [loadAverage()];
  const runs = [await run('known limit', o, o.limit), await run('discovered (AIMD)', o, 5 * o.limit)];
  load.push(loadAverage());
  const pct = (x) => `${fmt(100 * x, 1)} %`;
  const section = [
    `### Broadcast through a throttling webhook — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: \`${machine()}\`. 1-minute load average ${load.map((l) => l.toFixed(2)).join(' before, ')} after (the machine is shared with other sessions' builds and tests). ${o.production ? 'Production profile, every tier its own process, two executors each pacing to half the budget' : 'Embedded profile, two executors, one process'}; the receiver (WebhookReceiver + rateLimitedPolicy) accepts ${fmt(o.limit)} recipients/s in all, 429 + Retry-After (whole seconds) above. ${fmt(o.recipients)} recipients, all online, batches of 500. Command: \`node bench/channel-throttle.js --recipients ${o.recipients} --limit ${o.limit}${o.production ? ' --production' : ''}\`.`,
    '',
    '| channel maxRate | end | exact | sent twice | requests (throttled) | after 10 s: throttled | after 10 s: send rate | vs limit | time | vs limit-bound |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...runs.map(
      (r) =>
        `| ${fmt(r.maxRate)} (${r.label}) | ${r.state} | ${r.exact ? 'yes' : 'NO'} | ${fmt(r.duplicates)} | ${fmt(r.requests)} (${fmt(r.throttled)}) | ${fmt(r.afterThrottled)} of ${fmt(r.afterRequests)} (${pct(r.afterThrottled / r.afterRequests)}) | ${fmt(r.rateAfter)}/s | ${pct(r.rateAfter / o.limit - 1)} | ${fmt(r.seconds, 1)} s | ${fmt(r.seconds, 1)} / ${fmt(r.bound, 1)} s (${pct(r.seconds / r.bound - 1)}) |`,
    ),
    '',
  ].join('\n');
  process.stdout.write(section + '\n');
  if (o.record) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), '\n' + section);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
