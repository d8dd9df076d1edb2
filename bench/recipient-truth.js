#!/usr/bin/env node
/*
 * What per-recipient truth costs (docs/recipient-truth.md): writes the
 * delivery records of an N-position task (batches of 4,096, 40% online at
 * random) to a LevelDeliveryRecordLog, measures the directory on disk and the
 * write rate, writes an N-recipient filtered list, then times random lookups
 * of a recipient's position and its batch's bit (the lookup path of GET
 * /api/v1/tasks/:id/recipients/:uin, without HTTP), and the funnel's walk of
 * every batch record (GET /api/v1/tasks/:id/funnel's delivery stages). Uses the built packages
 * (`npx tsc -b` first). Usage: node bench/recipient-truth.js [N=10000000]
 */
const { mkdtemp, readdir, rm, stat } = require('node:fs/promises');
const { tmpdir } = require('node:os');
const path = require('node:path');
const { seededRandom } = require('@herald/core');
const { bitAt, CoverageCounter, onlineBitsOf } = require('@herald/core/fate');
const { ListFlags } = require('@herald/core/recipient-list');
const { LevelDeliveryRecordLog } = require('@herald/store-level');
const { positionInList, writeRecipientListFile } = require('@herald/audience');

const N = Number(process.argv[2] ?? 10_000_000);
const BATCH = 4096;
const LOOKUPS = 20_000;

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
    for (let from = 0; from < N; from += BATCH) {
      const batch = uins.subarray(from, Math.min(N, from + BATCH));
      const online = batch.filter(() => random() < 0.4);
      await log.recordBatch({
        taskId: 1,
        from,
        count: batch.length,
        online: onlineBitsOf(batch, online),
        executor: 'executor-1',
        at: Date.now(),
      });
    }
    const writeSeconds = (performance.now() - started) / 1000;
    await log.close();
    const onDisk = await dirBytes(path.join(dir, 'records'));
    const listPath = path.join(dir, 'f_1.hrl');
    await writeRecipientListFile(listPath, uins, ListFlags.SORTED | ListFlags.UNIQUE);
    const reopened = await LevelDeliveryRecordLog.open(path.join(dir, 'records'));
    const times = [];
    for (let i = 0; i < LOOKUPS; i++) {
      const want = Math.floor(random() * N);
      started = performance.now();
      const position = await positionInList(listPath, uins[want]);
      const record = await reopened.batchAt(1, position);
      bitAt(record.online, position - record.from);
      times.push(performance.now() - started);
      if (position !== want) throw new Error(`lookup of ${uins[want]} found ${position}, not ${want}`);
    }
    const funnelTimes = [];
    for (let i = 0; i < 5; i++) {
      started = performance.now();
      const counter = new CoverageCounter(N);
      for await (const record of reopened.batchesFrom(1, 0)) counter.add(record);
      const { online, offline } = counter.finish([]);
      funnelTimes.push(performance.now() - started);
      if (online + offline !== N) throw new Error(`the funnel counted ${online + offline} of ${N} positions`);
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
        recordWritesPerSecond: Math.round(N / writeSeconds),
        lookupMs: { p50: Number(pct(times, 0.5).toFixed(3)), p99: Number(pct(times, 0.99).toFixed(3)) },
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
