#!/usr/bin/env node
/**
 * What a per-recipient lookup costs on the production profile
 * (docs/recipient-truth.md, "On the production profile"): starts a cluster
 * of real processes (1 interface, 1 scheduler, 1 dispatcher, 1 presence
 * agent, 2 executors, 1 controller; MariaDB, a standalone ZooKeeper,
 * librdkafka's mock Kafka), broadcasts a task of RECIPIENTS distinct uins
 * (3% blacklisted, 30% online, the rest queued offline on the executors)
 * in units of 5,000 and batches of 500 (the failover test's shape), waits
 * until it is COMPLETED, then asks GET /api/v1/tasks/:id/recipients/:uin
 * for LOOKUPS uins of the list (in a shuffled order, every one of them
 * distinct while LOOKUPS <= RECIPIENTS) WIDTH at a time, ROUNDS times.
 * Prints lookups/s and the CPU each process spent during the lookups
 * (/proc/<pid>/stat, its threads included) per lookup: the interface, each
 * executor, MariaDB, and this process (the client).
 *
 * --cpu-prof <dir> runs the interface under `node --cpu-prof` (the profile
 * is written when it stops); open it in Chrome's DevTools or summarise it
 * with bench/breakdown.js.
 *
 *   node bench/production-lookups.js [--recipients 100000] [--lookups 20000] [--width 32] [--rounds 2]
 *     [--cpu-prof <dir>]
 */
const { readFileSync, readdirSync } = require('node:fs');
const { encodeRecipientList } = require('@herald/core/recipient-list');
const { seededRandom } = require('@herald/core');
const { syntheticAudience } = require('@herald/audience');
const { authHeaders, makeTempDir, ProcessCluster, TEST_AUTH_OPTIONS, waitFor } = require('@herald/testing');
const { arg, commit, loadAverage, machine, startProductionServers } = require('./lib');

const begun = performance.now();
/** Progress on stderr, so a long run shows where it is. */
const step = (what) => process.stderr.write(`[${((performance.now() - begun) / 1000).toFixed(1)} s] ${what}\n`);

/** CPU seconds a process has used so far, its threads included (utime + stime, /proc/<pid>/stat). */
function cpuSecondsOf(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The MariaDB server's pid (the tests' shared server), or undefined when it is not on this host. */
function mariadbPid() {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (/^(mariadbd|mysqld)$/.test(readFileSync(`/proc/${name}/comm`, 'utf8').trim())) return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

/** `f` over `items`, `width` at a time. */
async function pooled(items, width, f) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await f(items[next++]);
    }),
  );
}

async function main() {
  const recipients = Number(arg('--recipients', 100_000));
  const lookups = Number(arg('--lookups', 20_000));
  const width = Number(arg('--width', 32));
  const rounds = Number(arg('--rounds', 2));
  const profileDir = arg('--cpu-prof', undefined);
  const loadAtStart = loadAverage();
  const servers = await startProductionServers('lookups');
  const dir = await makeTempDir('herald-bench-lookups-');
  const cluster = new ProcessCluster(
    dir.path,
    { interfaces: 1, schedulers: 1, dispatchers: 1, executors: 2, controllers: 1, presence: 1 },
    servers.names,
  );
  try {
    await cluster.configure({
      dispatcher: { batchSize: 500, unitSize: 5_000 },
      // Not rate limited (the cluster's default is 1,000 requests/s): the bench measures the lookups.
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
    });
    await cluster.keysAndSchema();
    const audience = syntheticAudience({
      recipients,
      onlineFraction: 0.3,
      blacklistFraction: 0.03,
      uinLimit: 2 ** 24,
      seed: 19,
    });
    step('starting the processes');
    for (const tier of ['scheduler', 'dispatcher', 'presence', 'executor', 'controller'])
      await Promise.all(cluster.ids(tier).map((id) => cluster.start(tier, id)));
    if (profileDir !== undefined) cluster.nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
    await cluster.start('interface', 'interface-1', ['--port', String(cluster.httpPorts[0])]);
    cluster.nodeArgs = [];
    await cluster.publishOnline(audience.online);
    await cluster.waitForPresence();

    const api = async (p, init) => {
      const response = await fetch(cluster.url + p, { ...init, headers: { ...init?.headers, ...authHeaders() } });
      if (!response.ok) throw new Error(`${p}: ${response.status} ${await response.text()}`);
      return response.json();
    };
    const binary = { 'content-type': 'application/octet-stream' };
    await api('/api/v1/blacklists/global', {
      method: 'PUT',
      headers: binary,
      body: encodeRecipientList(audience.blacklist),
    });
    const list = await api('/api/v1/lists?accountId=acme', {
      method: 'POST',
      headers: binary,
      body: encodeRecipientList(audience.list),
    });
    const task = await api('/api/v1/tasks', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 'acme', listId: list.id, content: { body: 'lookups' } }),
    });
    step(`task ${task.id} of ${recipients} recipients created`);
    await waitFor(async () => (await api(`/api/v1/tasks/${task.id}`)).state === 'COMPLETED', {
      timeoutMs: 600_000,
      intervalMs: 250,
      message: 'the task did not complete',
    });
    step('task completed');

    const random = seededRandom(7);
    const uins = Array.from(audience.distinct);
    for (let i = uins.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [uins[i], uins[j]] = [uins[j], uins[i]];
    }
    const asked = Array.from({ length: lookups }, (_, i) => uins[i % uins.length]);
    const pids = Object.fromEntries(
      cluster.processes.filter((p) => p.tier === 'interface' || p.tier === 'executor').map((p) => [p.id, p.child.pid]),
    );
    const mariadb = mariadbPid();
    if (mariadb !== undefined) pids.mariadb = mariadb;
    const results = [];
    for (let round = 1; round <= rounds; round++) {
      const fates = {};
      const unknowns = [];
      const cpuBefore = Object.fromEntries(Object.entries(pids).map(([id, pid]) => [id, cpuSecondsOf(pid)]));
      const clientBefore = process.cpuUsage();
      const loadBefore = loadAverage();
      const started = performance.now();
      await pooled(asked, width, async (uin) => {
        const answer = await api(`/api/v1/tasks/${task.id}/recipients/${uin}`);
        const key = answer.then === undefined ? answer.fate : `${answer.fate} ${answer.then.outcome}`;
        fates[key] = (fates[key] ?? 0) + 1;
        // An unknown answer on a healthy cluster is a fault of the lookup: its reason is printed.
        const reason = answer.fate === 'unknown' ? answer.reason : answer.then?.reason;
        if (reason !== undefined && unknowns.length < 5) unknowns.push({ uin, reason });
      });
      const seconds = (performance.now() - started) / 1000;
      const client = process.cpuUsage(clientBefore);
      const cpuMsPerLookup = Object.fromEntries(
        Object.entries(pids).map(([id, pid]) => [id, round3(((cpuSecondsOf(pid) - cpuBefore[id]) * 1000) / lookups)]),
      );
      cpuMsPerLookup.client = round3((client.user + client.system) / 1000 / lookups);
      const result = {
        round,
        lookups,
        width,
        lookupsPerSecond: Math.round(lookups / seconds),
        seconds: round3(seconds),
        cpuMsPerLookup,
        load: [loadBefore, loadAverage()].map((l) => Number(l.toFixed(2))),
        fates,
        unknowns,
      };
      results.push(result);
      step(`round ${round}: ${result.lookupsPerSecond} lookups/s`);
    }
    // Why an executor did not answer, as the interface logged it (a healthy cluster logs none).
    const hostsDown = cluster.processes
      .filter((p) => p.tier === 'interface')
      .flatMap((p) => p.output.split('\n').filter((line) => line.includes('did not give its delivery records')))
      .slice(0, 5);
    console.log(
      JSON.stringify({ machine: machine(), commit: commit(), recipients, loadAtStart, results, hostsDown }, null, 1),
    );
  } finally {
    step('stopping');
    await cluster.stopAll().catch(() => undefined);
    await dir.remove().catch(() => undefined);
    await servers.stop();
  }
}

const round3 = (n) => Number(n.toFixed(3));

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
