#!/usr/bin/env node
/**
 * Where the embedded executor's worker waits while sending, with and without
 * the delivery records (issue 19: the records' send-path cost is waiting,
 * not work). Runs the same 10^7 broadcast as `bench/fanout.js --records-cost`
 * alternately with and without records, after a 10^6 warm-up, and wraps the
 * built executor's parts in this process only (nothing in the packages
 * changes) to sum, per sending phase:
 *
 * - `busyS`: the worker writing batches (writeBatch);
 * - `lineWaitS` / `lineWaits`: the worker waiting for the confirmation line
 *   (full: the oldest batch's confirmation not settled yet);
 * - `idleS`: the worker waiting for a batch to come (prefetch empty);
 * - `confirmS`: the confirmations' own time, hand-over to settled;
 * - `recordWrites`, `recordsPerWrite`, `recordWriteMs` (p50/p99/max): the
 *   delivery records' LevelDB writes and how long each took to land;
 * - `handOverS`: how long the record group's write held the main thread
 *   while it was handed to the thread pool (synchronous, `RecordGroup.flush`),
 *   and `handOverOutsideWritesS`, the part of it handed over while the worker
 *   was not waiting for a batch's own writes (on the send path's critical
 *   path).
 *
 *   node bench/records-waits.js [--sizes 1e7] [--runs 2] [--online 0.3]
 */
const path = require('node:path');
const { performance } = require('node:perf_hooks');
const { arg, benchAudience, loadAverage, commit, percentiles } = require('./lib');

const dist = (pkg, file) => path.join(__dirname, '..', 'packages', pkg, 'dist', file);

/** Counters the wrappers add to; `reset` starts a phase. */
const probe = {
  reset() {
    Object.assign(this, {
      busy: 0,
      lineWait: 0,
      lineWaits: 0,
      idle: 0,
      confirm: 0,
      writes: [],
      records: 0,
      handOver: 0,
      handOverOutside: 0,
    });
  },
};
probe.reset();

/** Wraps `owner[name]` (an async function or method) so `account(ms, args, result)` sees each call's time to settle. */
function timeCalls(owner, name, account) {
  const original = owner[name];
  owner[name] = function (...args) {
    const started = performance.now();
    const result = original.apply(this, args);
    const done = () => account(performance.now() - started, args);
    Promise.resolve(result).then(done, done);
    return result;
  };
}

/** Batches whose writes the worker is waiting for (writeBatch called, not settled). */
let writing = 0;

function instrument() {
  const deliver = require(dist('executor', 'deliver-batch.js'));
  const { RecordGroup } = require(dist('executor', 'record-group.js'));
  const flush = RecordGroup.prototype.flush;
  RecordGroup.prototype.flush = function () {
    const started = performance.now();
    flush.call(this);
    const ms = performance.now() - started;
    probe.handOver += ms;
    if (writing === 0) probe.handOverOutside += ms;
  };
  const writeBatch = deliver.writeBatch;
  deliver.writeBatch = function (...args) {
    writing++;
    const written = writeBatch.apply(this, args);
    written.then(
      () => writing--,
      () => writing--,
    );
    return written;
  };
  const { ConfirmationLine } = require(dist('executor', 'confirmation-line.js'));
  const { Prefetch } = require(dist('executor', 'prefetch.js'));
  const { LevelDeliveryRecordLog } = require(dist('store-level', 'level-delivery-record-log.js'));
  timeCalls(deliver, 'writeBatch', (ms) => (probe.busy += ms));
  timeCalls(deliver, 'confirmBatch', (ms) => (probe.confirm += ms));
  timeCalls(ConfirmationLine.prototype, 'enqueue', (ms) => {
    probe.lineWait += ms;
    if (ms > 0.05) probe.lineWaits++;
  });
  timeCalls(Prefetch.prototype, 'take', (ms) => (probe.idle += ms));
  timeCalls(LevelDeliveryRecordLog.prototype, 'recordBatches', (ms, [records]) => {
    probe.writes.push(ms);
    probe.records += records.length;
  });
}

async function main() {
  const sizes = arg('--sizes', '1e7').split(',').map(Number);
  const runs = Number(arg('--runs', '2'));
  const online = Number(arg('--online', '0.3'));
  instrument();
  const { runEmbeddedFanout } = require('./embedded-fanout');
  const rows = [];
  for (const n of sizes) {
    const audience = benchAudience(n, online);
    await runEmbeddedFanout(benchAudience(Math.min(n, 1e6), online));
    for (let run = 0; run < runs; run++)
      for (const records of run % 2 === 0 ? [true, false] : [false, true]) {
        const load1 = loadAverage();
        let sending;
        const onStage = async (stage) => {
          if (stage.startsWith('sending')) probe.reset();
          if (stage === 'end') sending = { ...probe };
        };
        const row = await runEmbeddedFanout(audience, { records, onStage });
        const writes = sending.writes.length > 0 ? percentiles(sending.writes) : undefined;
        const sample = {
          recipients: n,
          records,
          load1: Number(load1.toFixed(2)),
          sendS: row.sendS,
          sendCpuS: row.sendCpuS,
          busyS: sending.busy / 1e3,
          lineWaitS: sending.lineWait / 1e3,
          lineWaits: sending.lineWaits,
          idleS: sending.idle / 1e3,
          confirmS: sending.confirm / 1e3,
          recordWrites: sending.writes.length,
          recordsPerWrite: sending.writes.length > 0 ? sending.records / sending.writes.length : 0,
          recordWriteMs: writes && { p50: writes.p50, p99: writes.p99, max: writes.max },
          handOverS: sending.handOver / 1e3,
          handOverOutsideWritesS: sending.handOverOutside / 1e3,
        };
        rows.push(sample);
        process.stderr.write(JSON.stringify(sample) + '\n');
      }
  }
  process.stdout.write(JSON.stringify({ date: new Date().toISOString(), commit: commit(), rows }, null, 2) + '\n');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
