#!/usr/bin/env node
/**
 * The delivery report without a cluster or HTTP (docs/recipient-truth.md,
 * "The delivery report"): writes an N-uin audience's files directly (a
 * filtered list of 99%, a removed set of 1% blacklisted and 2% duplicate
 * copies, batch records of 4,096 with a third online, a login outcome every
 * 500th position) and iterates reportChunks over them, CSV then NDJSON,
 * counting bytes. Prints rows/s and this process's resident set before and
 * at peak during each walk: what the export costs at a size where
 * bench/report-export.js's whole cluster would not fit beside it.
 *
 *   node bench/report-walk.js 10000000
 *
 * Uses the built packages (`npx tsc -b` first).
 */
const { mkdtemp, rm, writeFile } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { encodeRemovedSets, onlineBitsOf } = require('@herald/core/fate');
const { ListFlags } = require('@herald/core/recipient-list');
const { ListRepository, removedPathOf, writeRecipientListFile } = require('@herald/audience');
const { LevelDeliveryRecordLog } = require('@herald/store-level');
const { CSV_LINES, ndjsonLines, reportChunks } = require('../packages/interface/dist/recipient-report');
const { commit, fmt, machine, rssSampler } = require('./lib');

const N = Number(process.argv[2] ?? 10_000_000);
const NOW = Date.UTC(2026, 10, 27);

async function main() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-report-walk-'));
  try {
    // Uins from 2^31 up, 3 apart: the high half of the uin space, as large ids are.
    const all = Uint32Array.from({ length: N }, (_, i) => i * 3 + 1 + 2 ** 31);
    const kept = all.filter((_, i) => i % 100 !== 0);
    const lists = new ListRepository(dir);
    const listPath = lists.pathOf('f_1');
    await writeRecipientListFile(listPath, kept, ListFlags.SORTED | ListFlags.UNIQUE);
    const sets = [
      { reason: 'duplicate', uins: all.filter((_, i) => i % 50 === 0) },
      { reason: 'blacklisted', uins: all.filter((_, i) => i % 100 === 0) },
    ];
    await writeFile(removedPathOf(listPath), encodeRemovedSets(sets, true));
    const log = await LevelDeliveryRecordLog.open(path.join(dir, 'records'));
    for (let from = 0; from < kept.length; from += 4096) {
      const batch = kept.subarray(from, Math.min(kept.length, from + 4096));
      const online = onlineBitsOf(
        batch,
        // Every third position (not every third uin: the uins, 3 apart from 2^31 + 1, are all multiples of 3).
        batch.filter((_, j) => (from + j) % 3 === 0),
      );
      await log.recordBatch({ taskId: 1, from, count: batch.length, online, executor: 'executor-1', at: NOW - 1e6 });
    }
    const outcomes = [];
    for (let i = 1; i < kept.length; i += 500)
      if (i % 3 !== 0) outcomes.push({ taskId: 1, uin: kept[i], outcome: 'delivered', at: NOW - 1e5 + i });
    await log.recordLogins(outcomes);
    const units = [{ unitNo: 0, start: 0, end: kept.length, checkpoint: kept.length }];
    const task = { id: 1, state: 'COMPLETED', filteredListId: 'f_1', expiresAt: NOW + 1e8, report: {} };
    const deps = {
      store: { listUnits: async () => units },
      lists,
      deliveryRecords: log,
      clock: { now: () => NOW },
      uinLimit: 2 ** 32,
    };
    const results = {};
    for (const [format, lines] of [
      ['csv', CSV_LINES],
      ['ndjson', ndjsonLines(1)],
    ]) {
      global.gc?.();
      const rssBefore = process.memoryUsage.rss() / 2 ** 20;
      const sampler = rssSampler(20);
      let bytes = 0;
      const started = performance.now();
      for await (const chunk of reportChunks(task, undefined, deps, lines)) bytes += chunk.length;
      const seconds = (performance.now() - started) / 1000;
      const rssPeak = sampler.stop();
      results[format] = {
        bytes,
        seconds: Number(seconds.toFixed(2)),
        rowsPerSecond: Math.round(N / seconds),
        rssBeforeMiB: Math.round(rssBefore),
        rssPeakMiB: Math.round(rssPeak),
      };
      process.stderr.write(`  ${format}: ${fmt(N / seconds)} rows/s\n`);
    }
    await log.close();
    const load = os.loadavg().map((n) => Number(n.toFixed(2)));
    console.log(
      JSON.stringify({ commit: commit(), machine: machine(), loadAverage: load, rows: N, ...results }, null, 2),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
