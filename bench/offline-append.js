#!/usr/bin/env node
/**
 * Offline appends at the real path's batch shapes: LevelOfflineStore.append
 * as the executors call it in `node bench/fanout.js --sizes 1e7`, measured
 * alone in CPU seconds (every thread of this process: LevelDB's and libuv's
 * too) and wall time.
 *
 * The shapes: the bench audience (bench/lib.js benchAudience: its distinct
 * uins, ascending, in 2^32 with gaps of ~40) cut into dispatcher batches of
 * `--batch` (DEFAULTS.dispatcher.batchSize, 16,384), each less its online
 * users (`--online`, 0.3: ~11,469 offline uins a batch); units of `--unit`
 * recipients (DEFAULTS.dispatcher.unitSize), `--interleave` of them at a
 * time taking turns batch by batch (a 10^7 fan-out's appends come from ~8
 * units at once, one append at a time), into a fresh store at
 * `--range-bits` (DEFAULTS.offline.rangeBits, 20). `--replay` then appends
 * every batch a second time (what a recovery does) and reports that pass too.
 * Each run checks that scanTask yields exactly the offline uins.
 *
 * `--groups N` appends as a local-time task's executors do
 * (bench/local-time-broadcast.js): the audience split into N groups as that
 * bench gives zones (each 10th user in group 0, the default zone's, the rest
 * by uin / 10), the delivery order group after group, units never
 * straddling two groups, each append naming its group.
 *
 *   node bench/offline-append.js [--recipients 1e7] [--online 0.3] [--batch 4096]
 *       [--unit 1048576] [--interleave 8] [--range-bits 20] [--runs 3] [--replay]
 *       [--groups 24] [--store-module path/to/store-level/dist/index.js]
 *
 * `--store-module` loads LevelOfflineStore from another build (a copy of an
 * earlier dist), to compare before and after in alternating runs.
 * Run it under `node --cpu-prof` for a profile of the appends (the audience
 * is made before the clock starts).
 */
const os = require('node:os');
const path = require('node:path');
const { DEFAULTS } = require('@herald/core/config');
const { makeTempDir } = require('@herald/testing');
const { arg, benchAudience, commit, fmt, loadAverage, machine } = require('./lib');

const recipients = Number(arg('--recipients', 1e7));
const online = Number(arg('--online', 0.3));
const batchSize = Number(arg('--batch', DEFAULTS.dispatcher.batchSize));
const unitSize = Number(arg('--unit', DEFAULTS.dispatcher.unitSize));
const interleave = Number(arg('--interleave', 8));
const rangeBits = Number(arg('--range-bits', DEFAULTS.offline.rangeBits));
const runs = Number(arg('--runs', 3));
const replay = process.argv.includes('--replay');
const groups = Number(arg('--groups', 0));
const storeModule = arg('--store-module', '@herald/store-level');
const { LevelOfflineStore } = require(storeModule.startsWith('@') ? storeModule : path.resolve(storeModule));

const log = (line) => process.stderr.write(`${line}\n`);
const cpuSeconds = (from) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1e6;
};

/** The audience in delivery order: one run of uins, or (`--groups`) each group's uins after the previous group's. */
function deliveryRuns(distinct) {
  if (groups === 0) return [{ group: undefined, uins: distinct }];
  const groupOf = (uin) => (uin % 10 === 9 ? 0 : Math.floor(uin / 10) % groups);
  return Array.from({ length: groups }, (_, group) => ({
    group,
    uins: distinct.filter((uin) => groupOf(uin) === group),
  }));
}

/** The offline share of each dispatcher batch, in the order the executors append them. */
function offlineBatches() {
  const { distinct, online: onlineUins } = benchAudience(recipients, online);
  const isOnline = new Set(onlineUins);
  const units = [];
  for (const run of deliveryRuns(distinct))
    for (let u = 0; u < run.uins.length; u += unitSize) {
      const unit = [];
      for (let b = u; b < Math.min(u + unitSize, run.uins.length); b += batchSize) {
        const batch = run.uins.subarray(b, Math.min(b + batchSize, u + unitSize, run.uins.length));
        unit.push({ group: run.group, uins: batch.filter((uin) => !isOnline.has(uin)) });
      }
      units.push(unit);
    }
  // `interleave` units at a time, taking turns; the next unit starts when one ends.
  const order = [];
  const active = units.splice(0, interleave).map((unit) => ({ unit, at: 0 }));
  while (active.length > 0) {
    for (let i = 0; i < active.length; i++) {
      const a = active[i];
      order.push(a.unit[a.at++]);
      if (a.at === a.unit.length) {
        const next = units.shift();
        if (next === undefined) active.splice(i--, 1);
        else active[i] = { unit: next, at: 0 };
      }
    }
  }
  return order;
}

async function pass(store, batches) {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const expiresAt = Date.now() + 86_400_000;
  for (const { group, uins } of batches)
    await (group === undefined ? store.append(1, expiresAt, uins) : store.append(1, expiresAt, uins, { group }));
  return { cpu: cpuSeconds(cpu0), wall: (performance.now() - t0) / 1000 };
}

async function scannedCount(store) {
  let n = 0;
  for await (const chunk of store.scanTask(1)) n += chunk.length;
  return n;
}

async function main() {
  const batches = offlineBatches();
  const entries = batches.reduce((n, b) => n + b.uins.length, 0);
  log(
    `offline appends: ${fmt(entries)} entries in ${fmt(batches.length)} batches, ${groups} groups ` +
      `(${storeModule}, rangeBits ${rangeBits})`,
  );
  const per1e7 = (s) => (s * 1e7) / entries;
  for (let run = 1; run <= runs; run++) {
    const dir = await makeTempDir('herald-bench-offline-append-');
    const load = loadAverage();
    try {
      const store = await LevelOfflineStore.open(dir.path, { rangeBits });
      const first = await pass(store, batches);
      const again = replay ? await pass(store, batches) : undefined;
      const scanned = await scannedCount(store);
      await store.close();
      if (scanned !== entries) throw new Error(`scanTask yielded ${scanned} uins, appended ${entries}`);
      const line = (name, p) =>
        `${name}: CPU ${p.cpu.toFixed(3)} s (${per1e7(p.cpu).toFixed(3)} s per 10^7), wall ${p.wall.toFixed(3)} s, ` +
        `${fmt(entries / p.wall)} entries/s`;
      log(`run ${run} (load ${load.toFixed(2)}) ${line('append', first)}${again ? `; ${line('replay', again)}` : ''}`);
    } finally {
      await dir.remove();
    }
  }
  log(`machine: ${machine()}; commit ${commit()}; cores ${os.cpus().length}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
