#!/usr/bin/env node
/**
 * Presence and the offline path on one host (the online bitmap and the
 * offline lists: docs/presence.md; docs/architecture.md, "Offline-list
 * layout"), four measurements:
 *
 *   1. presence events applied: N login / logout events (60% logins, over N/2
 *      random users, event time rising) published on the presence topic while
 *      the presence agent (@herald/presence) follows it into a 2^32-bit shared
 *      bitmap (SharedOnlineBitmap in /dev/shm). Clock: first publish -> the
 *      agent has read all N (its herald_presence_events_total); then every
 *      user's bit is checked against their last event. On the embedded event
 *      log (LevelEventLog), live and as a replay (a new generation reading the
 *      whole topic into a new bitmap, what a host does after a reboot), and
 *      on Kafka (librdkafka's mock cluster through kcat, KafkaEventBus),
 *      published at the agent's pace: the mock keeps only ~5 MiB per
 *      partition, so the publisher stays within 90,000 events of the agent
 *      (docs/presence.md). `--no-kafka` leaves Kafka out.
 *   2. offline appends: LevelOfflineStore.append as an executor calls it, the
 *      offline share of each dispatcher.batchSize batch (DEFAULTS: 16,384; at
 *      0.3 online, 11,469 uins), sorted, for R recipients over T tasks (each
 *      task the same R/T offline users, batches of the tasks interleaved, one
 *      append at a time), offline.rangeBits as configured by default (20).
 *   3. login walks: W of those users, in random order, each with T entries,
 *      through the executor's login queue (createLoginQueue + LoginDelivery:
 *      pending -> deliver -> acknowledge) into a counting gateway (the store's
 *      cost, not a push channel's); checked: W x T deliveries.
 *   4. memory per host: a presence writer process creating the 2^32-bit
 *      bitmap ~30% online, and 4 reader processes (the executors) mapping it
 *      read-only and counting its online bits (every page read); each
 *      process's Rss and Pss from /proc/<pid>/smaps_rollup, and its bitmap
 *      mapping's from /proc/<pid>/smaps (cross-process.test.ts's approach).
 *      One physical copy: the sum of the mappings' Pss is one 512 MiB bitmap,
 *      not 5.
 *
 *   node bench/presence-offline.js [--full] [--record] [--no-kafka]
 *       [--events 1e6] [--kafka-events 2e5] [--recipients 1e6] [--tasks 3]
 *       [--walks 1e5] [--readers 4] [--uin-bits 32] [--online 0.3]
 *       [--steps presence,offline,memory]
 *
 * Quick (default): 10^6 events (Kafka 2 x 10^5), 10^6 offline recipients,
 * 10^5 login walks. --full: 4 x 10^6 events (Kafka 10^6), 10^7 recipients,
 * 10^6 walks. With --record the section is appended to bench/RESULTS.md.
 * Files go to /dev/shm (bitmaps) and the temporary directory, removed at the end.
 */
const { fork } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { DEFAULTS } = require('@herald/core/config');
const { TOPICS } = require('@herald/core/ports');
const { mulberry32 } = require('@herald/core');
const { SharedOnlineBitmap, bitmapFileBytes } = require('@herald/shared-bitmap');
const { startPresenceAgent } = require('@herald/presence');
const { LevelEventLog } = require('@herald/events-level');
const { KafkaEventBus } = require('@herald/events-kafka');
const { LevelOfflineStore } = require('@herald/store-level');
const { LoginDelivery, TaskCache, createLoginQueue } = require('@herald/executor');
const { TestKafka, makeTempDir, newTask, waitFor } = require('@herald/testing');
const { benchDir } = require('./bitmap');
const { machine, commit, arg, fmt } = require('./lib');

const MODES = {
  quick: { events: 5e5, kafkaEvents: 1e5, recipients: 1e6, walks: 1e4 },
  full: { events: 2e6, kafkaEvents: 5e5, recipients: 1e7, walks: 1e5 },
};
const PUBLISH_CHUNK = 10_000;
/** Events the Kafka publisher may run ahead of the agent: ~30,000 a partition of 3, well inside the mock's ~5 MiB. */
const KAFKA_MAX_AHEAD = 90_000;
/** Consumer group timing for the mock cluster (as in the KafkaEventBus tests): it holds a new group's first join for 3 s. */
const MOCK_TIMING = {
  sessionTimeoutMs: 6_000,
  rebalanceTimeoutMs: 6_000,
  heartbeatIntervalMs: 500,
  maxWaitTimeMs: 250,
};
const DAY_MS = 86_400_000;

const log = (line) => process.stderr.write(`${line}\n`);
const seconds = (t0) => (performance.now() - t0) / 1000;
/** CPU seconds this process (every thread: LevelDB's and libuv's too) spent since `from` (a process.cpuUsage()). */
const cpuSeconds = (from) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1e6;
};

/** `count` distinct random uins below `limit`, ascending. */
function distinctSortedUins(count, limit, seed) {
  const random = mulberry32(seed);
  const seen = new Set();
  while (seen.size < count) seen.add(limit === 2 ** 32 ? random() : random() % limit);
  return Uint32Array.from(seen).sort();
}

/** Partial Fisher-Yates: `count` of `uins` in random order. */
function randomSample(uins, count, seed) {
  const random = mulberry32(seed);
  const copy = uins.slice();
  const n = Math.min(count, copy.length);
  for (let i = 0; i < n; i++) {
    const j = i + (random() % (copy.length - i));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.subarray(0, n);
}

/**
 * The presence events, in publish order, a chunk at a time: 60% logins, users
 * drawn from `users`, event time rising by 1 ms every 1,000 events. `last`
 * collects each user's final state, to check the bitmap against.
 */
function* presenceChunks(count, users, last) {
  const random = mulberry32(7);
  const t0 = Date.now();
  for (let i = 0; i < count; i += PUBLISH_CHUNK) {
    const chunk = [];
    for (let k = i; k < Math.min(count, i + PUBLISH_CHUNK); k++) {
      const uin = users[random() % users.length];
      const online = random() % 10 < 6;
      const at = t0 + Math.floor(k / 1000);
      last.set(uin, online);
      chunk.push({ key: String(uin), value: { uin, online, at }, timestamp: at });
    }
    yield chunk;
  }
}

/** A meter that counts the agent's events read (applied, stale, malformed): all the presence step needs of it. */
function eventCounter() {
  const counts = { applied: 0, stale: 0, malformed: 0 };
  const meter = {
    counter: (name) => ({
      inc: (labels = {}, n = 1) => name === 'herald_presence_events_total' && (counts[labels.result] += n),
    }),
    gauge: () => ({ set() {} }),
    histogram: () => ({ observe() {} }),
  };
  return { meter, counts, read: () => counts.applied + counts.stale + counts.malformed };
}

/** Users whose bit disagrees with their last event. */
function wrongBits(bitmap, last) {
  let wrong = 0;
  for (const [uin, online] of last) if (bitmap.isOnline(uin) !== online) wrong++;
  return wrong;
}

/** A new 2^32-bit shared bitmap (512 MiB on tmpfs), removed by `remove`. */
function freshBitmap(name) {
  const file = path.join(benchDir(), `herald-bench-${name}-${process.pid}.bitmap`);
  fs.rmSync(file, { force: true });
  const writer = SharedOnlineBitmap.openWriter(file, 2 ** 32);
  return { writer, file, remove: () => (writer.close(), fs.rmSync(file, { force: true })) };
}

/**
 * One agent following the topic into a new bitmap: from the first publish
 * (or, with nothing to publish, the subscription) until it has read `expected`
 * events. Returns the times and the check of every user's bit.
 */
async function followIntoBitmap({ bus, generation, chunks, expected, maxAhead, last, timeoutMs }) {
  const bitmap = freshBitmap(generation);
  const counter = eventCounter();
  let notified = 0;
  let agent;
  try {
    agent = await startPresenceAgent({
      id: 'bench',
      bus,
      bitmap: bitmap.writer,
      generation,
      meter: counter.meter,
      notifyLogins: async (uins) => void (notified += uins.length),
    });
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    let published = 0;
    for (const chunk of chunks) {
      if (maxAhead !== undefined && published - counter.read() > maxAhead) {
        await waitFor(() => published - counter.read() <= maxAhead, {
          timeoutMs,
          intervalMs: 5,
          message: 'the agent keeping up with the publisher',
        });
      }
      await bus.publish(TOPICS.presence, chunk);
      published += chunk.length;
    }
    const publishS = seconds(t0);
    await waitFor(() => counter.read() >= expected, {
      timeoutMs,
      intervalMs: 5,
      message: `the agent reading all ${expected} events (read ${counter.read()})`,
    });
    const appliedS = seconds(t0);
    const cpuS = cpuSeconds(cpu0);
    const wrong = wrongBits(bitmap.writer, last);
    if (wrong > 0)
      throw new Error(`presence (${generation}): ${wrong} of ${last.size} users' bits differ from their last event`);
    return { publishS, appliedS, cpuS, counts: { ...counter.counts }, notified, wrong, users: last.size };
  } finally {
    await agent?.close();
    bitmap.remove();
  }
}

async function presenceOnLevel(events) {
  const dir = await makeTempDir('herald-bench-presence-');
  const bus = await LevelEventLog.open(path.join(dir.path, 'events'));
  try {
    const users = distinctSortedUins(Math.max(1, Math.floor(events / 2)), 2 ** 32, 11);
    const last = new Map();
    const timeoutMs = Math.max(120_000, events / 10);
    log(`  presence, LevelEventLog: ${fmt(events)} events, live`);
    const live = await followIntoBitmap({
      bus,
      generation: 'live',
      chunks: presenceChunks(events, users, last),
      expected: events,
      last,
      timeoutMs,
    });
    log(`  presence, LevelEventLog: replay into a new bitmap`);
    const replay = await followIntoBitmap({ bus, generation: 'replay', chunks: [], expected: events, last, timeoutMs });
    return [
      { bus: 'LevelEventLog (embedded), live: agent subscribed, then published', events, ...live },
      { bus: 'LevelEventLog, replay: a new generation reads the whole topic', events, ...replay },
    ];
  } finally {
    await bus.close();
    await dir.remove();
  }
}

async function presenceOnKafka(events) {
  const kafka = await TestKafka.start();
  let bus;
  try {
    const tag = `${Date.now().toString(36)}${process.pid}`;
    bus = await KafkaEventBus.connect({
      brokers: kafka.brokers,
      clientId: `bench-${tag}`,
      topicPrefix: `bench${tag}.`,
      ...MOCK_TIMING,
    });
    const users = distinctSortedUins(Math.max(1, Math.floor(events / 2)), 2 ** 32, 11);
    const last = new Map();
    log(`  presence, Kafka (mock): ${fmt(events)} events, live, at most ${fmt(KAFKA_MAX_AHEAD)} ahead of the agent`);
    const live = await followIntoBitmap({
      bus,
      generation: 'live',
      chunks: presenceChunks(events, users, last),
      expected: events,
      maxAhead: KAFKA_MAX_AHEAD,
      last,
      timeoutMs: Math.max(120_000, events / 2),
    });
    return [
      {
        bus: `Kafka (librdkafka mock, 3 partitions), live, publisher <= ${fmt(KAFKA_MAX_AHEAD)} events ahead`,
        events,
        ...live,
      },
    ];
  } finally {
    await bus?.close();
    await kafka.stop();
  }
}

async function runPresence({ events, kafkaEvents }) {
  const rows = await presenceOnLevel(events);
  if (kafkaEvents > 0) rows.push(...(await presenceOnKafka(kafkaEvents)));
  return rows;
}

/** Counts what the login walks hand over, nothing more. */
class CountingGateway {
  deliveries = 0;
  async deliver(delivery) {
    this.deliveries += delivery.uins.length;
  }
  async close() {}
}

async function runOffline({ recipients, tasks, walks, online }) {
  const batchSize = DEFAULTS.dispatcher.batchSize;
  const appendSize = Math.round(batchSize * (1 - online));
  const users = distinctSortedUins(Math.ceil(recipients / tasks), 2 ** 32, 23);
  const dir = await makeTempDir('herald-bench-offline-');
  const store = await LevelOfflineStore.open(dir.path, { rangeBits: DEFAULTS.offline.rangeBits });
  try {
    const expiresAt = Date.now() + 7 * DAY_MS;
    log(`  offline appends: ${fmt(users.length)} users x ${tasks} tasks in appends of ${fmt(appendSize)}`);
    let batches = 0;
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    for (let at = 0; at < users.length; at += appendSize) {
      for (let taskId = 1; taskId <= tasks; taskId++) {
        await store.append(taskId, expiresAt, users.subarray(at, at + appendSize));
        batches++;
      }
    }
    const appendS = seconds(t0);
    const appendCpuS = cpuSeconds(cpu0);
    const appends = {
      recipients: users.length * tasks,
      users: users.length,
      tasks,
      batches,
      appendSize,
      batchSize,
      rangeBits: store.rangeBits,
      s: appendS,
      cpuS: appendCpuS,
      bytes: await store.approximateBytes(),
    };

    const sample = randomSample(users, walks, 29);
    log(`  login walks: ${fmt(sample.length)} users, ${tasks} entries each`);
    const taskById = new Map(
      Array.from({ length: tasks }, (_, i) => [
        i + 1,
        { ...newTask({ content: { body: 'bench' }, expiresAt }), id: i + 1 },
      ]),
    );
    const gateway = new CountingGateway();
    const delivery = new LoginDelivery(store, gateway, new TaskCache({ getTask: async (id) => taskById.get(id) }));
    const queue = createLoginQueue(delivery, { maxPending: sample.length, labels: { executor: 'bench' } });
    const t1 = performance.now();
    const cpu1 = process.cpuUsage();
    queue.enqueue(sample);
    await queue.idle();
    const walkS = seconds(t1);
    const walkCpuS = cpuSeconds(cpu1);
    if (gateway.deliveries !== sample.length * tasks)
      throw new Error(`login walks delivered ${gateway.deliveries} entries, expected ${sample.length * tasks}`);
    const leftOver = (await store.pending(sample[0])).length;
    if (leftOver !== 0) throw new Error(`user ${sample[0]} still has ${leftOver} entries after the walk`);
    return {
      appends,
      walks: { users: sample.length, entries: tasks, delivered: gateway.deliveries, s: walkS, cpuS: walkCpuS },
    };
  } finally {
    await store.close();
    await dir.remove();
  }
}

/** A process holding the bitmap (bench/bitmap-holder.js), and its one answer. */
function holder(message) {
  const child = fork(path.join(__dirname, 'bitmap-holder.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = new Promise((resolve, reject) => {
    child.once('message', (reply) =>
      reply.error ? reject(new Error(`bitmap holder ${child.pid}: ${reply.error}`)) : resolve(reply.ready),
    );
    child.once('exit', (code, signal) => reject(new Error(`bitmap holder ${child.pid} exited (${code ?? signal})`)));
  });
  child.send(message);
  return { child, ready };
}

/** kB fields of /proc/<pid>/smaps_rollup (the whole process), and Rss / Pss of its mappings of `file` from /proc/<pid>/smaps; in MiB. */
function processMemory(pid, file) {
  const kb = (text, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(text)?.[1] ?? NaN) / 1024;
  const rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const mapping = { rss: 0, pss: 0 };
  let inFile = false;
  for (const line of fs.readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S{4} \S+ \S+ \d+\s+(.*)$/.exec(line);
    if (header) inFile = header[1] === file;
    else if (inFile) {
      const field = /^(Rss|Pss):\s+(\d+) kB$/.exec(line);
      if (field) mapping[field[1] === 'Rss' ? 'rss' : 'pss'] += Number(field[2]) / 1024;
    }
  }
  return {
    rss: kb(rollup, 'Rss'),
    pss: kb(rollup, 'Pss'),
    pssAnon: kb(rollup, 'Pss_Anon'),
    bitmapRss: mapping.rss,
    bitmapPss: mapping.pss,
  };
}

async function runMemory({ readers, uinBits, online }) {
  const uinLimit = 2 ** uinBits;
  const file = path.join(benchDir(), `herald-bench-host-${process.pid}.bitmap`);
  fs.rmSync(file, { force: true });
  const children = [];
  try {
    log(`  memory: a writer filling a 2^${uinBits}-bit bitmap ${online} online`);
    const writer = holder({ cmd: 'write', path: file, uinLimit, online });
    children.push(writer.child);
    const { share } = await writer.ready;
    log(`  memory: ${readers} readers counting its online bits`);
    const started = Array.from({ length: readers }, () => holder({ cmd: 'read', path: file, uinLimit }));
    children.push(...started.map((r) => r.child));
    const counts = await Promise.all(started.map((r) => r.ready));
    if (new Set(counts.map((c) => c.online)).size > 1)
      throw new Error(`the readers counted different online bits: ${counts.map((c) => c.online).join(', ')}`);
    const processes = [
      { role: 'presence writer', child: writer.child },
      ...started.map((r, i) => ({ role: `executor reader ${i + 1}`, child: r.child, online: counts[i].online })),
    ].map((p) => ({
      role: p.role,
      pid: p.child.pid,
      online: p.online,
      ...processMemory(p.child.pid, file),
    }));
    return { uinBits, share, bitmapMiB: bitmapFileBytes(uinLimit) / 2 ** 20, processes };
  } finally {
    await Promise.all(
      children.map((child) => {
        if (child.exitCode !== null || child.signalCode !== null) return undefined;
        const exited = new Promise((resolve) => child.once('exit', resolve));
        if (child.connected) child.send({ cmd: 'exit' });
        else child.kill();
        return exited;
      }),
    );
    fs.rmSync(file, { force: true });
  }
}

function presenceTable(rows) {
  return [
    '| event bus | events | published in (s) | all applied after (s) | events/s applied | CPU s of this process | events per CPU s | applied / stale | users came online (notified) | users | bits wrong |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${r.bus} | ${fmt(r.events)} | ${r.publishS > 0.001 ? fmt(r.publishS, 2) : '-'} | ${fmt(r.appliedS, 2)} | **${fmt(r.events / r.appliedS)}** | ${fmt(r.cpuS, 2)} | ${fmt(r.events / r.cpuS)} | ${fmt(r.counts.applied)} / ${fmt(r.counts.stale)} | ${fmt(r.notified)} | ${fmt(r.users)} | ${fmt(r.wrong)} |`,
    ),
    '',
    "Live rows: publisher and agent in this one process (the embedded profile's shape; on Kafka the broker is the kcat process beside it, its CPU not counted). Replay: the agent alone, reading events already in the log. Bits wrong: users whose bit differs from their last event (must be 0).",
  ].join('\n');
}

function offlineTable({ appends: a, walks: w }) {
  return [
    '| measure | count | seconds | per second | CPU s of this process | per CPU s |',
    '|---|---:|---:|---:|---:|---:|',
    `| offline appends: recipients (${fmt(a.users)} users x ${a.tasks} tasks) | ${fmt(a.recipients)} | ${fmt(a.s, 2)} | **${fmt(a.recipients / a.s)}** recipients/s | ${fmt(a.cpuS, 2)} | ${fmt(a.recipients / a.cpuS)} |`,
    `| offline appends: batches of ${fmt(a.appendSize)} (the offline share of a ${fmt(a.batchSize)} batch) | ${fmt(a.batches)} | ${fmt(a.s, 2)} | ${fmt(a.batches / a.s)} batches/s | ${fmt(a.cpuS, 2)} | ${fmt(a.batches / a.cpuS)} |`,
    `| login walks (pending -> deliver -> acknowledge), ${w.entries} entries a user, random order | ${fmt(w.users)} users (${fmt(w.delivered)} entries delivered) | ${fmt(w.s, 2)} | **${fmt(w.users / w.s)}** users/s (${fmt(w.delivered / w.s)} entries/s) | ${fmt(w.cpuS, 2)} | ${fmt(w.users / w.cpuS)} users |`,
    '',
    `Store: LevelOfflineStore, rangeBits ${a.rangeBits} (the configuration default), ${fmt(a.bytes / 2 ** 20)} MiB on disk by LevelDB's estimate after the appends (what is still only in its log not counted).`,
  ].join('\n');
}

function memoryTable(v) {
  const mib = (x) => fmt(x, 1);
  const sum = (key) => v.processes.reduce((s, p) => s + p[key], 0);
  const readers = v.processes.length - 1;
  return [
    '| process | Rss (MiB) | Pss (MiB) | of which Pss_Anon (heap, MiB) | bitmap mapping Rss (MiB) | bitmap mapping Pss (MiB) | online bits counted |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...v.processes.map(
      (p) =>
        `| ${p.role} (pid ${p.pid}) | ${mib(p.rss)} | ${mib(p.pss)} | ${mib(p.pssAnon)} | ${mib(p.bitmapRss)} | ${mib(p.bitmapPss)} | ${p.online === undefined ? '-' : fmt(p.online)} |`,
    ),
    `| **sum, ${v.processes.length} processes** | ${mib(sum('rss'))} | **${mib(sum('pss'))}** | ${mib(sum('pssAnon'))} | ${mib(sum('bitmapRss'))} | **${mib(sum('bitmapPss'))}** | |`,
    '',
    `Bitmap: 2^${v.uinBits} bits, ${mib(v.bitmapMiB)} MiB file on tmpfs, ${fmt(v.share, 3)} online. The sum of the mappings' Pss is ${fmt(sum('bitmapPss') / v.bitmapMiB, 2)} x one bitmap (${v.processes.length} private copies would be ${fmt(v.processes.length * v.bitmapMiB)} MiB): one physical copy, each process's Rss counting all of it. Per host with ${readers} executors: one bitmap plus each process's own memory (Pss minus its bitmap share). The readers here are Node plus @herald/shared-bitmap only; an executor's own heap is bench/production.js's per-process peak.`,
  ].join('\n');
}

/** A run's settings in `mode` (quick or full): every step, the sizes of MODES, 4 readers, 2^32 bits, 0.3 online, 3 tasks. */
function defaults(mode) {
  return {
    mode,
    steps: ['presence', 'offline', 'memory'],
    ...MODES[mode],
    tasks: 3,
    readers: 4,
    uinBits: 32,
    online: 0.3,
  };
}

/** The defaults of the mode on the command line, with what it overrides. */
function options(argv) {
  const d = defaults(argv.includes('--full') ? 'full' : 'quick');
  const steps = arg('--steps', d.steps.join(',')).split(',');
  for (const s of steps) if (!d.steps.includes(s)) throw new Error(`unknown step ${s} (${d.steps.join(', ')})`);
  const number = (name, key) => Number(arg(name, d[key]));
  return {
    ...d,
    steps,
    events: number('--events', 'events'),
    kafkaEvents: argv.includes('--no-kafka') ? 0 : number('--kafka-events', 'kafkaEvents'),
    recipients: number('--recipients', 'recipients'),
    tasks: number('--tasks', 'tasks'),
    walks: number('--walks', 'walks'),
    readers: number('--readers', 'readers'),
    uinBits: number('--uin-bits', 'uinBits'),
    online: number('--online', 'online'),
  };
}

/** Runs the steps asked for; each result with the 1-minute load average at its start. */
async function runPresenceOffline(o) {
  const result = {};
  const at = () => os.loadavg()[0];
  if (o.steps.includes('presence')) result.presence = { load: at(), value: await runPresence(o) };
  if (o.steps.includes('offline')) result.offline = { load: at(), value: await runOffline(o) };
  if (o.steps.includes('memory')) result.memory = { load: at(), value: await runMemory(o) };
  return result;
}

/** The tables of a run, each under a heading with its load average at the start. */
function tables(result) {
  const parts = [];
  const load = (r) => `load at start ${fmt(r.load, 2)}`;
  if (result.presence)
    parts.push(
      `#### Presence events applied by the presence agent (2^32-bit shared bitmap; ${load(result.presence)})`,
      '',
      presenceTable(result.presence.value),
      '',
    );
  if (result.offline)
    parts.push(
      `#### Offline appends and login walks, one core (${load(result.offline)})`,
      '',
      offlineTable(result.offline.value),
      '',
    );
  if (result.memory)
    parts.push(
      `#### Memory per host: a presence writer and ${result.memory.value.processes.length - 1} executor readers sharing one bitmap (${load(result.memory)})`,
      '',
      memoryTable(result.memory.value),
      '',
    );
  return parts.join('\n');
}

async function main() {
  const argv = process.argv.slice(2);
  const o = options(argv);
  log(
    `presence and offline, ${o.mode}: ${o.steps.join(', ')}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const loadBefore = os.loadavg();
  const result = await runPresenceOffline(o);
  const loadAfter = os.loadavg();
  const loads = (l) => l.map((x) => x.toFixed(2)).join(', ');
  const section = [
    `### Presence events, offline appends, login walks and memory per host (${o.mode}) — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: 2 cores, Debian 12, Node 20 (\`${machine()}\`). \`uptime\` load average ${loads(loadBefore)} before, ${loads(loadAfter)} after (1, 5, 15 minutes)${loadBefore[0] > 4 ? ': **loaded**, other sessions were running; the rates are lower bounds' : ''}. Command: \`node bench/presence-offline.js${argv
      .filter((a) => a !== '--record')
      .map((a) => ' ' + a)
      .join('')}\`.`,
    '',
    tables(result),
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (argv.includes('--record')) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), `\n${section}`);
}

module.exports = { runPresenceOffline, tables, defaults };

if (require.main === module) {
  main()
    .catch((error) => {
      process.stderr.write(`bench:presence-offline: ${error.stack ?? error}\n`);
      process.exitCode = 1;
    })
    // A stopped Kafka client can leave a socket in its close timeout: the run is done.
    .finally(() => setTimeout(() => process.exit(), 1000).unref());
}
