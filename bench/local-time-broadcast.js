#!/usr/bin/env node
/**
 * The whole cost of a local-time broadcast against a single-instant one
 * (issue 21: "within 10% in total send time, excluding the waiting"), end to
 * end on one embedded cluster through the real HTTP API and tiers.
 *
 *   node bench/local-time-broadcast.js [--recipients 1e7] [--online 0.3] [--runs 2] [--record] [--threads]
 *
 * Like with like: one cluster, one audience (bench/lib.js benchAudience: uins
 * spread over 2^32, `online` of them online, the same blacklist), every user
 * but each 10th carrying one of 24 zones in the attribute index for BOTH kinds
 * of task, the same file sink. Each run creates a plain task and a
 * `deliverAt: { localTime: "09:00" }` task, alternating which goes first, each
 * with its own content (the no-resend filter would otherwise drop the second).
 *
 * Excluding the waiting: every tier reads an injected clock that runs with the
 * wall clock from 2026-10-24 22:00 UTC (the evening before Europe leaves
 * daylight saving, as the embedded local-time test); as soon as the
 * local-time task is SENDING (grouped, units planned and stored) the clock
 * jumps 30 h ahead, past every group's release instant, so the scheduler's
 * next tick (every 20 ms, for both tasks) releases every held group at once
 * and the groups send back to back. "end to end" is creation to COMPLETED;
 * "CPU" is this process's user + system time (every tier and its worker
 * threads) over the same span: on a shared machine, the less noisy figure.
 * `--threads` also prints each task's sending CPU by thread name.
 */
const { mkdtemp, rm } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const fs = require('node:fs');
const { writeRecipientListFile } = require('@herald/audience');
const { startEmbeddedCluster } = require('@herald/embedded');
const { authHeaders, LOCAL_TIME_ZONES: ZONES, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');
const { upload } = require('./embedded-fanout');
const { machine, commit, arg, fmt, benchAudience, loadAverage } = require('./lib');

const PLANNED_AT = Date.UTC(2026, 9, 24, 22);
const JUMP_MS = 30 * 3_600_000;
const PUT_BATCH = 10_000; // MAX_USERS_PER_PUT

/**
 * Counts the LevelDB writes (puts and deletes, and the bytes put) per store
 * directory, by wrapping classic-level's three write paths: single puts and
 * deletes, the chained batch and the array batch. `take(dir)` answers the counts since the last take.
 */
function levelWriteCounter() {
  const { ClassicLevel } = require('classic-level');
  const { ChainedBatch } = require('classic-level/chained-batch.js');
  const counts = new Map();
  const of = (db) => {
    const name = path.basename(db.location);
    let c = counts.get(name);
    if (c === undefined) counts.set(name, (c = { puts: 0, dels: 0, bytes: 0 }));
    return c;
  };
  const { _put, _del } = ChainedBatch.prototype;
  ChainedBatch.prototype._put = function (key, value) {
    const c = of(this.db);
    c.puts++;
    c.bytes += key.length + value.length;
    return _put.call(this, key, value);
  };
  ChainedBatch.prototype._del = function (key) {
    of(this.db).dels++;
    return _del.call(this, key);
  };
  const { _batch, _put: put1, _del: del1 } = ClassicLevel.prototype;
  ClassicLevel.prototype._put = function (key, value, options) {
    const c = of(this);
    c.puts++;
    c.bytes += key.length + value.length;
    return put1.call(this, key, value, options);
  };
  ClassicLevel.prototype._del = function (key, options) {
    of(this).dels++;
    return del1.call(this, key, options);
  };
  ClassicLevel.prototype._batch = function (operations, options) {
    const c = of(this);
    for (const op of operations) {
      if (op.type === 'put') {
        c.puts++;
        c.bytes += op.key.length + op.value.length;
      } else c.dels++;
    }
    return _batch.call(this, operations, options);
  };
  return {
    take(name) {
      const c = counts.get(name) ?? { puts: 0, dels: 0, bytes: 0 };
      counts.delete(name);
      return c;
    },
  };
}

/**
 * CPU seconds per thread (/proc/self/task/<tid>/stat): the main thread as
 * "main", the threads Node leaves named "node" (libuv's pool, where
 * LevelDB's reads and writes run, V8's helpers, worker threads) as "other",
 * the rest by name (LevelDB's compaction thread), for `--threads`: where a
 * task's sending CPU went. Empty where /proc is not there. Clock ticks of
 * 10 ms, so a thread's figure is good to about that.
 */
function threadCpu() {
  const out = new Map();
  let tids = [];
  try {
    tids = fs.readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      // Node names most of its threads "node" too: the main thread is the one whose id is the process's.
      const comm = stat.slice(stat.indexOf('(') + 1, close).replace(/[0-9]+$/, '');
      const name = Number(tid) === process.pid ? 'main' : comm === 'node' ? 'other' : comm;
      const fields = stat.slice(close + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100; // utime + stime
      out.set(`${name}#${tid}`, seconds);
    } catch {
      // the thread ended meanwhile
    }
  }
  return out;
}

/** The CPU per thread name between two threadCpu() readings, largest first, e.g. "node 0.61, libuv-worker 0.30". */
function threadCpuSince(before, after) {
  const byName = new Map();
  for (const [key, seconds] of after) {
    const name = key.slice(0, key.lastIndexOf('#'));
    byName.set(name, (byName.get(name) ?? 0) + seconds - (before.get(key) ?? 0));
  }
  return [...byName]
    .filter(([, s]) => s >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([name, s]) => `${name} ${s.toFixed(2)}`)
    .join(', ');
}

/** Wall-clock time shifted to PLANNED_AT at the start; `jump()` moves it past every release. */
function benchClock() {
  let offset = PLANNED_AT - Date.now();
  return {
    now: () => Date.now() + offset,
    jump(ms) {
      offset += ms;
    },
    /** Back to the planning instant, so every task is grouped from the same evening. */
    reset() {
      offset = PLANNED_AT - Date.now();
    },
  };
}

/** Every user but each 10th gets a zone by uin; stored in uin order, so each put touches few chunks. */
async function storeZones(cluster, list) {
  const sorted = Uint32Array.from(list).sort();
  for (let at = 0; at < sorted.length; at += PUT_BATCH) {
    const users = [];
    for (const uin of sorted.subarray(at, at + PUT_BATCH))
      users.push(uin % 10 === 9 ? { uin } : { uin, tz: ZONES[Math.floor(uin / 10) % ZONES.length] });
    await cluster.attributes.putUsers(users);
  }
}

/** Creates one task and follows it to COMPLETED; the local-time one gets the clock's jump once it is SENDING. */
async function runTask(cluster, clock, writes, listId, count, kind, n) {
  clock.reset();
  const stores = ['offline', 'tasks', 'delivery-records'];
  for (const name of stores) writes.take(name);
  const cpu0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const response = await fetch(cluster.url + '/api/v1/tasks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders() },
    body: JSON.stringify({
      accountId: 'bench',
      listId,
      content: { body: `bench ${kind} ${n}` },
      confirm: count,
      ttlSeconds: 3 * 86_400,
      ...(kind === 'local'
        ? { deliverAt: { localTime: '09:00', window: '1h', missed: 'next_day', defaultTimeZone: 'Europe/Berlin' } }
        : {}),
    }),
  });
  const created = await response.json();
  if (response.status !== 201) throw new Error(`create: ${JSON.stringify(created)}`);
  let task;
  let sendingAt;
  let sendingCpu;
  let sendingThreads;
  for (;;) {
    task = await cluster.store.getTask(created.id);
    if (sendingAt === undefined && task.state === 'SENDING') {
      sendingAt = process.hrtime.bigint();
      sendingCpu = process.cpuUsage();
      sendingThreads = threadCpu();
      if (kind === 'local') clock.jump(JUMP_MS);
    }
    if (['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state)) break;
    await new Promise((r) => setTimeout(r, 10));
  }
  const t1 = process.hrtime.bigint();
  const cpuAll = process.cpuUsage(cpu0);
  const cpuSend = process.cpuUsage(sendingCpu);
  if (process.argv.includes('--threads'))
    process.stderr.write(`${kind} ${n}: CPU sending by thread: ${threadCpuSince(sendingThreads, threadCpu())}\n`);
  if (task.state !== 'COMPLETED') throw new Error(`task ended ${task.state}: ${JSON.stringify(task.error)}`);
  const r = task.report;
  const removed = Object.values(r.removed).reduce((a, b) => a + b, 0);
  if (r.delivered + r.offline + removed !== r.total) throw new Error('report does not reconcile');
  const units = await cluster.store.listUnits(created.id);
  const offline = writes.take('offline');
  const taskPuts = writes.take('tasks').puts + writes.take('delivery-records').puts;
  const s = (a, b) => Number(b - a) / 1e9;
  return {
    kind,
    endToEndS: s(t0, t1),
    preprocessS: s(t0, sendingAt),
    sendS: s(sendingAt, t1),
    cpuS: (cpuAll.user + cpuAll.system) / 1e6,
    sendCpuS: (cpuSend.user + cpuSend.system) / 1e6,
    delivered: r.delivered,
    offline: r.offline,
    removed,
    units: units.length,
    groups: r.localGroups?.length ?? 0,
    offlinePuts: offline.puts,
    offlineMiB: offline.bytes / 2 ** 20,
    taskPuts,
    load: loadAverage(),
  };
}

function row(r) {
  return `| ${r.run} | ${r.kind} | ${r.load.toFixed(1)} | ${r.groups} | ${r.units} | ${r.preprocessS.toFixed(2)} | ${r.sendS.toFixed(2)} | ${r.endToEndS.toFixed(2)} | ${r.cpuS.toFixed(2)} | ${r.sendCpuS.toFixed(2)} | ${fmt(r.offlinePuts)} | ${r.offlineMiB.toFixed(0)} | ${fmt(r.taskPuts)} | ${fmt(r.delivered)} | ${fmt(r.offline)} | ${fmt(r.removed)} |`;
}

async function main() {
  const recipients = Number(arg('--recipients', '1e7'));
  const online = Number(arg('--online', '0.3'));
  const runs = Number(arg('--runs', '2'));
  // --only plain|local: one kind alone (for a CPU profile of one path).
  const only = arg('--only', undefined);
  const audience = benchAudience(recipients, online);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-bench-ltb-'));
  const clock = benchClock();
  const writes = levelWriteCounter();
  const rows = [];
  try {
    const listFile = path.join(dir, 'audience.hrl');
    const blacklistFile = path.join(dir, 'blacklist.hrl');
    await writeRecipientListFile(listFile, audience.list, 0);
    await writeRecipientListFile(blacklistFile, audience.blacklist, 0);
    const cluster = await startEmbeddedCluster(
      {
        dataDir: path.join(dir, 'data'),
        http: { port: 0 },
        auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
        tasks: TEST_TASK_OPTIONS,
        scheduler: { tickMs: 20 },
      },
      { clock },
    );
    try {
      for (const uin of audience.online) cluster.online.setOnline(uin, true);
      await upload(cluster.url + '/api/v1/blacklists/global', blacklistFile);
      const t = performance.now();
      await storeZones(cluster, audience.list);
      process.stderr.write(`zones stored in ${((performance.now() - t) / 1000).toFixed(1)} s\n`);
      const list = await upload(cluster.url + '/api/v1/lists?accountId=bench', listFile);
      for (let run = 1; run <= runs; run++) {
        const order = only ? [only] : run % 2 === 1 ? ['plain', 'local'] : ['local', 'plain'];
        for (const kind of order) {
          const result = { run, ...(await runTask(cluster, clock, writes, list.id, list.count, kind, run)) };
          rows.push(result);
          process.stderr.write(`${row(result)}\n`);
        }
      }
    } finally {
      await cluster.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const same = rows.every((r) => r.delivered === rows[0].delivered && r.offline === rows[0].offline);
  if (!same) throw new Error('the plain and local-time tasks did not reach the same recipients');
  const sum = (kind, key) => rows.filter((r) => r.kind === kind).reduce((n, r) => n + r[key], 0);
  const ratio = (key) => (only ? 'n/a' : `${((sum('local', key) / sum('plain', key) - 1) * 100).toFixed(1)}%`);
  const table = [
    '| run | task | load | groups | units | pre-processing (s) | sending (s) | end to end (s) | CPU (s) | CPU sending (s) | offline-store puts | offline-store MiB put | task-store + records puts | delivered | offline | removed |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(row),
  ].join('\n');
  const summary = `Local-time over plain, summed over the runs: end to end ${ratio('endToEndS')}, CPU ${ratio('cpuS')}, sending ${ratio('sendS')}, CPU sending ${ratio('sendCpuS')}, pre-processing ${ratio('preprocessS')}.`;
  process.stdout.write(`${table}\n\n${summary}\n`);
  if (process.argv.includes('--record')) {
    const entry = `\n### Local-time broadcast against a single instant — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}\n\nMachine: ${machine()}. Command: \`node bench/local-time-broadcast.js --recipients ${recipients} --online ${online} --runs ${runs} --record\`.\n\n${table}\n\n${summary}\n`;
    fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), entry);
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
