#!/usr/bin/env node
/*
 * What per-recipient truth costs (docs/recipient-truth.md): writes the
 * delivery records of an N-position task (batches of 4,096, 40% online at
 * random, 0.5% of the online ones rejected by the channel) to a
 * LevelDeliveryRecordLog, measures the directory on disk and the write rate,
 * writes an N-recipient filtered list and its removed sets (1% of N
 * blacklisted), then times LOOKUPS lookups of random recipients of the list
 * through recipientFate, the code GET /api/v1/tasks/:id/recipients/:uin runs
 * (binary search of the list, the removed sets, the batch record; without
 * HTTP), and the funnel's walk of every batch record (GET
 * /api/v1/tasks/:id/funnel's delivery stages). The records are generated
 * here, not by a broadcast (a 10^8 broadcast is too slow for this machine);
 * the files are in the page cache, as on a host that serves them. Uses the
 * built packages (`npx tsc -b` first).
 *
 *   node bench/recipient-truth.js [N=10000000] [LOOKUPS=10000]
 */
const { mkdtemp, readdir, rm, stat } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { seededRandom } = require('@herald/core');
const { writeFile } = require('node:fs/promises');
const { CoverageCounter, encodeRemovedSets, onlineBitsOf, rejectionsOf } = require('@herald/core/fate');
const { ListFlags } = require('@herald/core/recipient-list');
const { LevelDeliveryRecordLog } = require('@herald/store-level');
const { ListRepository, removedPathOf, writeRecipientListFile } = require('@herald/audience');
const { recipientFate } = require('../packages/interface/dist/recipient-fate');
const { loadAverage } = require('./lib');

const N = Number(process.argv[2] ?? 10_000_000);
const LOOKUPS = Number(process.argv[3] ?? 10_000);
const BATCH = 4096;
const REJECTED_SHARE = 0.005;

async function dirBytes(dir) {
  let total = 0;
  for (const name of await readdir(dir)) total += (await stat(path.join(dir, name))).size;
  return total;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

async function main() {
  const dir = await mkdtemp(path.join(tmpdir(), 'herald-truth-'));
  try {
    const random = seededRandom(42);
    const uins = new Uint32Array(N);
    for (let i = 0; i < N; i++) uins[i] = i * 3 + 1;
    const log = await LevelDeliveryRecordLog.open(path.join(dir, 'records'));
    let started = performance.now();
    let rejectedCount = 0;
    for (let from = 0; from < N; from += BATCH) {
      const batch = uins.subarray(from, Math.min(N, from + BATCH));
      const online = batch.filter(() => random() < 0.4);
      const rejected = Array.from(
        online.filter(() => random() < REJECTED_SHARE),
        (uin) => ({ uin, reason: 'unregistered' }),
      );
      rejectedCount += rejected.length;
      const rejections = rejectionsOf(batch, rejected);
      await log.recordBatch({
        taskId: 1,
        from,
        count: batch.length,
        online: onlineBitsOf(batch, online),
        executor: 'executor-1',
        at: Date.now(),
        ...(rejections === undefined ? {} : { rejected: rejections }),
      });
    }
    const writeSeconds = (performance.now() - started) / 1000;
    await log.close();
    const onDisk = await dirBytes(path.join(dir, 'records'));
    const lists = new ListRepository(dir);
    const listPath = lists.pathOf('f_1');
    await writeRecipientListFile(listPath, uins, ListFlags.SORTED | ListFlags.UNIQUE);
    // 1% of N blacklisted: uins between the list's, so a lookup reads a removed set of that size too.
    const blacklisted = Uint32Array.from({ length: Math.floor(N / 100) }, (_, i) => i * 300 + 2);
    await writeFile(removedPathOf(listPath), encodeRemovedSets([{ reason: 'blacklisted', uins: blacklisted }], true));
    const reopened = await LevelDeliveryRecordLog.open(path.join(dir, 'records'));
    // The task as the task store holds it once it completed: one unit, its checkpoint at the end.
    const task = { id: 1, state: 'COMPLETED', filteredListId: 'f_1', expiresAt: Date.now() + 86_400_000, report: {} };
    const deps = {
      store: { listUnits: async () => [{ unitNo: 0, start: 0, end: N, checkpoint: N }] },
      lists,
      deliveryRecords: reopened,
      clock: { now: () => Date.now() },
    };
    const times = [];
    const fates = {};
    const loadBefore = loadAverage();
    const cpuBefore = process.cpuUsage();
    for (let i = 0; i < LOOKUPS; i++) {
      const want = Math.floor(random() * N);
      started = performance.now();
      const answer = await recipientFate(task, uins[want], deps);
      times.push(performance.now() - started);
      if (answer.position !== want) throw new Error(`lookup of ${uins[want]} found ${answer.position}, not ${want}`);
      fates[answer.fate] = (fates[answer.fate] ?? 0) + 1;
    }
    const lookupCpu = process.cpuUsage(cpuBefore);
    const loadAfter = loadAverage();
    const funnelTimes = [];
    for (let i = 0; i < 5; i++) {
      started = performance.now();
      const counter = new CoverageCounter(N);
      for await (const record of reopened.batchesFrom(1, 0)) counter.add(record);
      const { online, rejected, offline } = counter.finish([]);
      funnelTimes.push(performance.now() - started);
      const counted = online + (rejected.unregistered ?? 0) + offline;
      if (counted !== N || (rejected.unregistered ?? 0) !== rejectedCount)
        throw new Error(`the funnel counted ${counted} of ${N} positions, ${rejected.unregistered} rejected`);
    }
    await reopened.close();
    times.sort((a, b) => a - b);
    funnelTimes.sort((a, b) => a - b);
    const bitsPerPosition = (onDisk * 8) / N;
    console.log(
      JSON.stringify({
        positions: N,
        recordsOnDiskBytes: onDisk,
        bitsPerPosition: Number(bitsPerPosition.toFixed(3)),
        mbPer1e8: Number((((onDisk / N) * 1e8) / 1e6).toFixed(1)),
        rejected: rejectedCount,
        recordWritesPerSecond: Math.round(N / writeSeconds),
        lookups: LOOKUPS,
        lookupFates: fates,
        lookupMs: {
          p50: Number(pct(times, 0.5).toFixed(3)),
          p99: Number(pct(times, 0.99).toFixed(3)),
          max: Number(times[times.length - 1].toFixed(3)),
        },
        // This process's CPU (its threads' reads included) per lookup: the work, apart from waiting for a core.
        lookupCpuMs: Number(((lookupCpu.user + lookupCpu.system) / 1000 / LOOKUPS).toFixed(3)),
        loadDuringLookups: [loadBefore, loadAfter],
        funnelWalkMs: {
          median: Math.round(pct(funnelTimes, 0.5)),
          max: Math.round(funnelTimes[funnelTimes.length - 1]),
        },
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
