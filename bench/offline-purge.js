#!/usr/bin/env node
/**
 * The offline store's collapse scopes and background purge
 * (docs/delivery.md, "Collapse keys" and "Expiry and purge"), on
 * LevelOfflineStore with the default offline.rangeBits (20):
 *
 *   1. appends: R offline recipients (random uins over 2^32, sorted) for each
 *      of T tasks, in batches of 2,867 uins (the offline share of a 4,096-uin
 *      batch at 0.3 online), as an executor appends them: once without a
 *      collapse scope, and once with every task in one scope, so each task
 *      supersedes the one before it (the cost a collapse key adds on the
 *      append path).
 *   2. purge: the tasks without a scope expired, then
 *      purgeExpired(now, offline.purgeMaxRecords) called until done, as the
 *      sweep does a tick at a time but back to back: entries and records
 *      removed per second of purging, and each call's time (p50, p99, max),
 *      which is what one sweep holds the store for.
 *
 *   node bench/offline-purge.js [--recipients 1e6] [--tasks 4] [--max-records 2000] [--record]
 *
 * With --record the section is appended to bench/RESULTS.md. The store goes
 * to the temporary directory, removed at the end.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { mulberry32 } = require('@herald/core');
const { DEFAULTS } = require('@herald/core/config');
const { LevelOfflineStore } = require('@herald/store-level');
const { makeTempDir } = require('@herald/testing');
const { arg, commit, fmt, machine, percentiles } = require('./lib');

const BATCH = 2867;
const EXPIRES = 1_800_000_000_000;

function audience(count, seed) {
  const next = mulberry32(seed);
  const seen = new Set();
  while (seen.size < count) seen.add(next() >>> 0);
  return Uint32Array.from(seen).sort();
}

async function appendAll(store, tasks, uins, expiresAt, options) {
  const started = process.hrtime.bigint();
  for (const taskId of tasks)
    for (let at = 0; at < uins.length; at += BATCH)
      await store.append(taskId, expiresAt, uins.subarray(at, at + BATCH), options);
  return Number(process.hrtime.bigint() - started) / 1e9;
}

async function run({ recipients, tasks, maxRecords }) {
  const dir = await makeTempDir('herald-bench-purge-');
  const store = await LevelOfflineStore.open(dir.path, { rangeBits: DEFAULTS.offline.rangeBits });
  try {
    const uins = audience(recipients, 7);
    const plain = Array.from({ length: tasks }, (_, i) => i + 1);
    const scoped = Array.from({ length: tasks }, (_, i) => tasks + i + 1);
    const plainSeconds = await appendAll(store, plain, uins, EXPIRES);
    const scopedSeconds = await appendAll(store, scoped, uins, EXPIRES + 86_400_000, {
      collapseScope: 'bench\u0000score',
    });
    let left = 0;
    for await (const part of store.scanTask(scoped[0])) left += part.length;

    const calls = [];
    let entries = 0;
    let records = 0;
    const started = process.hrtime.bigint();
    for (;;) {
      const t0 = process.hrtime.bigint();
      // Expired: the plain tasks only (EXPIRES); the scoped ones expire later.
      const purge = await store.purgeExpired(EXPIRES, maxRecords);
      calls.push(Number(process.hrtime.bigint() - t0) / 1e6);
      entries += purge.entries;
      records += purge.records;
      if (purge.done) break;
    }
    const purgeSeconds = Number(process.hrtime.bigint() - started) / 1e9;
    return { recipients, tasks, maxRecords, plainSeconds, scopedSeconds, left, entries, records, purgeSeconds, calls };
  } finally {
    await store.close();
    await dir.remove();
  }
}

function table(r) {
  const appended = r.recipients * r.tasks;
  const p = percentiles(r.calls);
  return [
    '| step | what | time (s) | rate |',
    '|---|---|---:|---:|',
    `| append, no scope | ${fmt(appended)} entries (${fmt(r.tasks)} tasks x ${fmt(r.recipients)}) | ${fmt(r.plainSeconds, 2)} | ${fmt(appended / r.plainSeconds)} entries/s |`,
    `| append, one collapse scope | ${fmt(appended)} entries, each task superseding the one before (first task left with ${fmt(r.left)}) | ${fmt(r.scopedSeconds, 2)} | ${fmt(appended / r.scopedSeconds)} entries/s |`,
    `| purge, maxRecords ${fmt(r.maxRecords)} | ${fmt(r.entries)} entries in ${fmt(r.records)} records and acknowledgements, ${fmt(r.calls.length)} calls | ${fmt(r.purgeSeconds, 2)} | ${fmt(r.entries / r.purgeSeconds)} entries/s |`,
    '',
    `One purge call (one sweep step): p50 ${fmt(p.p50, 1)} ms, p99 ${fmt(p.p99, 1)} ms, max ${fmt(p.max, 1)} ms.`,
  ].join('\n');
}

async function main() {
  const argv = process.argv.slice(2);
  const o = {
    recipients: Number(arg('--recipients', '1e6')),
    tasks: Number(arg('--tasks', '4')),
    maxRecords: Number(arg('--max-records', String(DEFAULTS.offline.purgeMaxRecords))),
  };
  const loadBefore = os.loadavg();
  const result = await run(o);
  const loadAfter = os.loadavg();
  const loads = (l) => l.map((x) => x.toFixed(2)).join(', ');
  const section = [
    `### Offline collapse scopes and purge — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: \`${machine()}\`. \`uptime\` load average ${loads(loadBefore)} before, ${loads(loadAfter)} after (1, 5, 15 minutes)${loadBefore[0] > 2 ? ': **loaded**, other sessions were running; the rates are lower bounds' : ''}. Command: \`node bench/offline-purge.js${argv
      .filter((a) => a !== '--record')
      .map((a) => ' ' + a)
      .join('')}\`.`,
    '',
    table(result),
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (argv.includes('--record')) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), `\n${section}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
