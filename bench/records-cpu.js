#!/usr/bin/env node
/*
 * The CPU the send path spends on delivery records, without the rest of a
 * broadcast (docs/recipient-truth.md, "The send path"): the records of a
 * 10^7-recipient task as the executor writes them (batches of 4,096, 30%
 * online at random, as bench/fanout.js; each its bitset, its encoding and
 * one LevelDB put, awaited one at a time), timed in CPU seconds of the
 * process (its threads, LevelDB's included), which a loaded machine disturbs
 * far less than the wall time of a broadcast. Prints one line per task; the
 * first includes warming up. Uses the built packages (`npx tsc -b` first).
 *
 *   node bench/records-cpu.js [TASKS=4]
 */
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { seededRandom } = require('@herald/core');
const { onlineBitsOf } = require('@herald/core/fate');
const { LevelDeliveryRecordLog } = require('@herald/store-level');

const RECIPIENTS = 1e7;
const BATCH = 4096;

async function main() {
  const tasks = Number(process.argv[2] ?? 4);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'herald-records-cpu-'));
  const log = await LevelDeliveryRecordLog.open(dir);
  try {
    const uins = Uint32Array.from({ length: BATCH }, (_, i) => 3 * i + 1);
    const random = seededRandom(7);
    // 16 different online sets, 30% of the batch each.
    const onlineSets = Array.from({ length: 16 }, () => uins.filter(() => random() < 0.3));
    const batches = Math.ceil(RECIPIENTS / BATCH);
    for (let taskId = 1; taskId <= tasks; taskId++) {
      const cpu = process.cpuUsage();
      const started = process.hrtime.bigint();
      for (let b = 0; b < batches; b++)
        await log.recordBatch({
          taskId,
          from: b * BATCH,
          count: BATCH,
          online: onlineBitsOf(uins, onlineSets[b % 16]),
          executor: 'executor-1',
          at: Date.now(),
        });
      const used = process.cpuUsage(cpu);
      const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
      process.stdout.write(
        `task ${taskId}: ${batches} records of ${BATCH}: cpu ${((used.user + used.system) / 1e3).toFixed(0)} ms, ` +
          `wall ${wallMs.toFixed(0)} ms, load ${os.loadavg()[0].toFixed(1)}\n`,
      );
    }
  } finally {
    await log.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
