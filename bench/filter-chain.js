#!/usr/bin/env node
/**
 * The filter chain on its own (docs/architecture.md, "The filter chain"), on a synthetic list of 10^8 recipients (2% duplicates,
 * 1% blacklisted: bench/lib.js benchAudience):
 *
 *   1. the in-memory links (dedupe, blacklist, no-resend against one earlier
 *      audience of a tenth of the list), from the list as loaded (unsorted) to
 *      the sorted filtered list: on this thread (radix sort + runFilterChain),
 *      and in 1 and 2 worker threads over hash-split chunks
 *      (runFilterChainParallel on the list in shared memory, what preprocess
 *      does from 2^20 recipients); the list is in memory before the clock
 *      starts, as preprocess has it once loaded;
 *      throughput = recipients / wall time, and per core = that / workers;
 *      for the workers, the process's peak resident set above what it was
 *      at the start, the list in memory (the kernel's high-water mark, reset
 *      before the run): the chain's own memory;
 *   2. the follower check over the account's local copy (FollowerCopies: the
 *      followers, 96% of the distinct recipients, as a list file), sampling
 *      validation included, against what the in-memory links kept: the scan
 *      rate in GB/s (the copy file's bytes / time) beside this machine's raw
 *      read rate of the same file (`dd bs=8M`), from the page cache and, when
 *      this process may write /proc/sys/vm/drop_caches, cold from disk (the
 *      scan timed cold too).
 *
 *   node bench/filter-chain.js [--recipients 1e8] [--removed-sets] [--record]
 *
 * --removed-sets: each run also records what each link removed (the chain's
 * `record` option), as pre-processing does (docs/recipient-truth.md).
 *
 * With --record the table is appended to bench/RESULTS.md with the date,
 * machine, commit and load average. Targeting and frequency are not in the
 * run: at 10^8 they measure their stores (an attribute index, the frequency
 * counter), not the chain. Files go to a temporary directory, removed at the end.
 */
const { execFileSync, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ListFlags } = require('@herald/core/recipient-list');
const { radixSortUint32 } = require('@herald/core/uins');
const { FollowerCopies, writeRecipientListFile } = require('@herald/audience');
const { buildFilterChain, followerMembership, runFilterChain, runFilterChainParallel } = require('@herald/dispatcher');
const { sortedFollowerStore } = require('@herald/testing');
const { machine, commit, arg, benchAudience, fmt } = require('./lib');

const CONTEXT = { taskId: 2, accountId: 'bench', contentCrc: 7 };

function log(line) {
  process.stderr.write(`${line}\n`);
}

/** Times `fn(input)`, the input prepared before the clock starts (as preprocess has the list loaded). */
async function timed(fn, input) {
  const t0 = performance.now();
  const value = await fn(input);
  return { value, s: (performance.now() - t0) / 1000 };
}

/** V8's collector, reachable without starting node with --expose-gc. */
const collectGarbage = (() => {
  require('node:v8').setFlagsFromString('--expose-gc');
  return require('node:vm').runInNewContext('gc');
})();

/** A field of /proc/self/status in MiB (VmRSS, VmHWM). */
function statusMiB(field) {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(fs.readFileSync('/proc/self/status', 'utf8'));
  if (!match) throw new Error(`/proc/self/status has no ${field}`);
  return Number(match[1]) / 1024;
}

/**
 * Times `fn(input)` as `timed` does, and measures the run's own memory: the
 * garbage of earlier runs is collected first (so the run cannot reuse it),
 * the kernel's high-water mark of this process's resident set is reset to
 * what it is now (`5` to /proc/self/clear_refs), and `extraMiB` is the peak
 * above it after the run, the workers' memory included (they are threads).
 */
async function timedWithMemory(fn, input) {
  collectGarbage();
  fs.writeFileSync('/proc/self/clear_refs', '5');
  const start = statusMiB('VmRSS');
  const run = await timed(fn, input);
  return { ...run, extraMiB: statusMiB('VmHWM') - start };
}

/** A copy in shared memory: what preprocess loads when workers may filter the list. */
function sharedCopy(values) {
  const copy = new Uint32Array(new SharedArrayBuffer(values.byteLength));
  copy.set(values);
  return copy;
}

/** dd's own timing of one sequential read of `file` (bytes / seconds from its summary line). */
function ddRead(file) {
  const { stderr, status } = spawnSync('dd', [`if=${file}`, 'of=/dev/null', 'bs=8M'], { encoding: 'utf8' });
  const out = String(stderr);
  if (status !== 0) throw new Error(`dd failed: ${out}`);
  const match = /^(\d+) bytes .* copied, ([\d.]+) s/m.exec(out);
  if (!match) throw new Error(`unexpected dd output: ${out}`);
  return { bytes: Number(match[1]), s: Number(match[2]) };
}

/** Drops the page cache (root only); false when this process may not. */
function dropCaches() {
  try {
    execFileSync('sync');
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
    return true;
  } catch {
    return false;
  }
}

async function runFilterChainBench({ recipients, removedSets = false }) {
  const options = removedSets ? { record: true } : {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-filter-chain-'));
  try {
    log(`generating ${fmt(recipients)} recipients`);
    const audience = benchAudience(recipients, 0);
    const blacklist = audience.blacklist;
    const sent = audience.distinct.filter((_, i) => i % 10 === 5);
    const followers = audience.distinct.filter((_, i) => i % 25 !== 7);
    const chain = buildFilterChain({
      blacklists: { global: async () => blacklist, forAccount: async () => undefined },
      ledger: {
        async *audiencesOf() {
          yield sent;
        },
      },
    });
    const rows = [];
    const single = await timed(
      (list) => runFilterChain(radixSortUint32(list), chain, CONTEXT, options),
      audience.list.slice(),
    );
    rows.push({ how: 'this thread (radix sort + runFilterChain)', workers: 1, s: single.s, result: single.value });
    log(`  this thread: ${single.s.toFixed(2)} s`);
    for (const workers of [1, 2]) {
      const run = await timedWithMemory(
        (list) => runFilterChainParallel(list, chain, CONTEXT, { workers, ...options }),
        sharedCopy(audience.list),
      );
      if (
        Buffer.compare(
          Buffer.from(run.value.kept.buffer, run.value.kept.byteOffset, run.value.kept.byteLength),
          Buffer.from(single.value.kept.buffer, single.value.kept.byteOffset, single.value.kept.byteLength),
        ) !== 0
      ) {
        throw new Error(`${workers} workers kept a different list than one thread`);
      }
      if (run.value.complete === true && !sameRemovedSets(run.value.removedSets, single.value.removedSets))
        throw new Error(`${workers} workers recorded other removed sets than one thread`);
      rows.push({
        how: `${workers} worker thread${workers > 1 ? 's' : ''} (runFilterChainParallel)`,
        workers,
        s: run.s,
        extraMiB: run.extraMiB,
        result: run.value,
      });
      log(`  ${workers} workers: ${run.s.toFixed(2)} s, peak resident ${run.extraMiB.toFixed(0)} MiB above the list`);
    }
    const kept = single.value.kept;

    log(`installing a follower copy of ${fmt(followers.length)}`);
    const listPath = path.join(dir, 'followers.hrl');
    await writeRecipientListFile(listPath, followers, ListFlags.SORTED | ListFlags.UNIQUE);
    const copies = new FollowerCopies(path.join(dir, 'copies'));
    await copies.install(CONTEXT.accountId, listPath);
    fs.rmSync(listPath);
    const copyFile = path.join(dir, 'copies', `${CONTEXT.accountId}.hrl`);
    const copyBytes = fs.statSync(copyFile).size;
    const membership = followerMembership(sortedFollowerStore(followers), copies);
    const check = () => timed((uins) => membership(CONTEXT.accountId, uins), kept.slice());
    const ddWarm = (ddRead(copyFile), ddRead(copyFile));
    const warm = await check();
    if (copies.lastVerdict(CONTEXT.accountId)?.at !== 'copy') throw new Error('the follower copy failed its samples');
    const coldOk = dropCaches();
    const ddCold = coldOk ? ddRead(copyFile) : undefined;
    const cold = coldOk && dropCaches() ? await check() : undefined;
    return {
      recipients,
      rows,
      sent: sent.length,
      kept: kept.length,
      followers: followers.length,
      notFollowers: kept.length - warm.value.length,
      copyBytes,
      ddWarm,
      ddCold,
      warm,
      cold,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether two chains recorded the same removed sets, byte for byte. */
function sameRemovedSets(a, b) {
  const bytes = (sets) =>
    Buffer.concat(sets.map((set) => Buffer.from(set.uins.buffer, set.uins.byteOffset, set.uins.byteLength)));
  return a.length === b.length && a.every((set, i) => set.reason === b[i].reason) && bytes(a).equals(bytes(b));
}

function table(v) {
  const gb = (bytes, s) => fmt(bytes / s / 1e9, 2);
  const removed = v.rows[0].result.removed;
  const lines = [
    `In-memory links on ${fmt(v.recipients)} recipients as loaded (unsorted): sorted, deduped (${fmt(removed.duplicate)}), blacklist (${fmt(removed.blacklisted)}), no-resend against one earlier audience of ${fmt(v.sent)} (${fmt(removed.already_sent)}); ${fmt(v.kept)} kept. Every run's list was compared byte for byte with this thread's.`,
    '',
    '| how | wall (s) | recipients/s | per core | peak resident above the list (MiB; bytes a recipient) |',
    '|---|---:|---:|---:|---:|',
    ...v.rows.map(
      (r) =>
        `| ${r.how} | ${fmt(r.s, 2)} | ${fmt(v.recipients / r.s)} | ${fmt(v.recipients / r.s / r.workers)} | ${r.extraMiB === undefined ? '-' : `${fmt(r.extraMiB)}; ${fmt((r.extraMiB * 2 ** 20) / v.recipients, 1)}`} |`,
    ),
    '',
    `Follower check over the local copy (${fmt(v.followers)} followers, ${fmt(v.copyBytes / 2 ** 20)} MiB file) for the ${fmt(v.kept)} kept (${fmt(v.notFollowers)} not followers), sampling validation included:`,
    '',
    '| measure | time (s) | GB/s (10^9 bytes of the copy file / s) | recipients checked/s |',
    '|---|---:|---:|---:|',
    `| raw read, \`dd bs=8M\`, page cache | ${fmt(v.ddWarm.s, 3)} | ${gb(v.ddWarm.bytes, v.ddWarm.s)} | - |`,
    `| follower check (scan + merge), page cache | ${fmt(v.warm.s, 3)} | ${gb(v.copyBytes, v.warm.s)} | ${fmt(v.kept / v.warm.s)} |`,
    ...(v.ddCold
      ? [
          `| raw read, \`dd bs=8M\`, cold (after drop_caches) | ${fmt(v.ddCold.s, 3)} | ${gb(v.ddCold.bytes, v.ddCold.s)} | - |`,
        ]
      : ['| cold reads | not measured: /proc/sys/vm/drop_caches not writable | | |']),
    ...(v.cold
      ? [
          `| follower check, cold (after drop_caches) | ${fmt(v.cold.s, 3)} | ${gb(v.copyBytes, v.cold.s)} | ${fmt(v.kept / v.cold.s)} |`,
        ]
      : []),
  ];
  return lines.join('\n');
}

async function main() {
  const recipients = Number(arg('--recipients', 1e8));
  const loadBefore = os.loadavg();
  const removedSets = process.argv.includes('--removed-sets');
  const v = await runFilterChainBench({ recipients, removedSets });
  const loadAfter = os.loadavg();
  const date = new Date().toISOString().slice(0, 10);
  const loads = (l) => l.map((x) => x.toFixed(2)).join(', ');
  const section = [
    `### Filter chain throughput and follower-copy scan, ${fmt(recipients)} recipients — ${date}, commit ${commit()}`,
    '',
    `Machine: 2 cores, Debian 12, Node 20 (\`${machine()}\`). \`uptime\` load average ${loads(loadBefore)} before, ${loads(loadAfter)} after (1, 5, 15 minutes)${loadBefore[0] > 4 ? ': **loaded**, other sessions were running; the times are upper bounds' : ''}. \`node bench/filter-chain.js --recipients ${recipients}${removedSets ? ' --removed-sets' : ''}\`.`,
    '',
    table(v),
    '',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (process.argv.includes('--record')) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), `\n${section}`);
}

module.exports = { runFilterChainBench, table };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`bench:filter-chain: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
