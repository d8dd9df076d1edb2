#!/usr/bin/env node
/**
 * Local-time grouping alone (issue 21): groupByLocalTime over a real
 * LevelAttributeIndex filled like bench/local-time-broadcast.js (the same
 * audience, every user but each 10th carrying one of 24 zones), without a
 * cluster: what a local-time task's pre-processing adds to a plain one's.
 *
 *   node bench/local-grouping.js [--recipients 3e6] [--runs 3] [--dir /tmp/h21idx] [--root ../main-before] [--sparse]
 *
 * `--dir` keeps the filled index between invocations (filling 10^7 users takes
 * ~100 s); it is filled only when it holds no zone yet. `--root` loads the
 * dispatcher and store from another checkout's build, to compare builds over
 * the same index. Prints each run's CPU (process.cpuUsage: this thread and
 * libuv's, where LevelDB reads) and wall time, in ms.
 */
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { createRequire } = require('node:module');
const { arg, benchAudience, commit, loadAverage } = require('./lib');

const PUT_BATCH = 10_000; // MAX_USERS_PER_PUT
const PLANNED_AT = Date.UTC(2026, 9, 24, 22);

/** As local-time-broadcast.js storeZones: every user but each 10th gets a zone by uin, stored in uin order. */
async function storeZones(index, sorted, zones) {
  for (let at = 0; at < sorted.length; at += PUT_BATCH) {
    const users = [];
    for (const uin of sorted.subarray(at, at + PUT_BATCH))
      users.push(uin % 10 === 9 ? { uin } : { uin, tz: zones[Math.floor(uin / 10) % zones.length] });
    await index.putUsers(users);
  }
}

async function main() {
  const recipients = Number(arg('--recipients', '3e6'));
  const runs = Number(arg('--runs', '3'));
  const root = path.resolve(arg('--root', path.join(__dirname, '..')));
  const dir = arg('--dir', undefined) ?? fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-grouping-'));
  const from = createRequire(path.join(root, 'bench', 'local-grouping.js'));
  const { LevelAttributeIndex } = from('@herald/store-level');
  const { groupByLocalTime } = from('@herald/dispatcher');
  const { LOCAL_TIME_ZONES } = from('@herald/testing');
  // --sparse: bench/local-time.js's audience instead (uins evenly over 2^31: ~30 a chunk, ~786,000 tz rows at 10^6).
  const sparse = process.argv.includes('--sparse');
  const stride = Math.max(1, Math.floor(2 ** 31 / recipients));
  const kept = sparse
    ? Uint32Array.from({ length: recipients }, (_, i) => i * stride + 1)
    : Uint32Array.from(new Set(benchAudience(recipients, 0.3).list)).sort();
  const index = await LevelAttributeIndex.open(dir);
  try {
    if ((await index.keysWithPrefix('tz=')).length === 0) {
      const t = performance.now();
      await storeZones(index, kept, LOCAL_TIME_ZONES);
      process.stderr.write(
        `zones of ${kept.length} users stored in ${((performance.now() - t) / 1000).toFixed(1)} s\n`,
      );
    }
    const task = {
      deliverAt: { localTime: '09:00', window: '1h', missed: 'next_day', defaultTimeZone: 'Europe/Berlin' },
      expiresAt: PLANNED_AT + 3 * 86_400_000,
    };
    process.stdout.write(
      `root ${root} (commit ${commit()} here), ${kept.length} recipients, load ${loadAverage().toFixed(1)}\n`,
    );
    for (let run = 1; run <= runs; run++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const grouping = await groupByLocalTime(kept, task, index, PLANNED_AT);
      const wall = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      process.stdout.write(
        `run ${run}: CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, wall ${wall.toFixed(0)} ms, ` +
          `${grouping.groups.length} groups, checksum ${checksum(grouping)}\n`,
      );
    }
  } finally {
    await index.close();
    if (arg('--dir', undefined) === undefined) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A cheap fingerprint of the delivery order, so two builds can be seen to
 * agree: the order laid out in memory (`order`, older builds) or each uin's
 * run (`list`, since the list is written straight from its runs).
 */
function checksum(grouping) {
  let h = 0;
  if (grouping.order !== undefined) {
    for (let i = 0; i < grouping.order.length; i++) h = (Math.imul(h, 31) + grouping.order[i]) | 0;
  } else {
    const { uins, runOf } = grouping.list;
    for (let i = 0; i < uins.length; i++) h = (Math.imul(h, 31) + uins[i] * 64 + runOf[i]) | 0;
  }
  return (h >>> 0).toString(16);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
