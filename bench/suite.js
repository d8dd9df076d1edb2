#!/usr/bin/env node
/**
 * The benchmark suite: every figure the goals ask for (docs/architecture.md,
 * "Goals: the numbers it must reach"), in one run, written as ONE new section at the end of bench/RESULTS.md
 * (date, machine, commit, mode, the 1-minute load average at the start and at
 * each step). It calls the single-purpose scripts' run functions, in this
 * process (the production profile's tiers are child processes):
 *
 *   1. physical reference: raw sequential read of a 10^8-uin list file (8 MiB
 *      reads; whether it was in the page cache, by fincore) and a sum over a
 *      Uint32Array of 10^8, next to Herald's per-stage fan-out rates;
 *   2. fan-out end to end, embedded profile (bench/embedded-fanout.js);
 *   3. task create -> first delivery, embedded (bench/latency.js);
 *   4. 1,000 concurrent tasks of 10^4 and real-time latency among them (bench/concurrent.js);
 *   5. the peer baseline, Herald vs BullMQ + Redis (bench/baseline.js; needs Redis);
 *   6. the production profile: fan-out, create -> first delivery cold and warm,
 *      each process's peak RSS (bench/production.js);
 *   7. the filter chain alone, on this thread and in 1 and 2 worker threads, and
 *      the follower check's scan of a local copy beside `dd` (bench/filter-chain.js;
 *      10^7 quick, 10^8 full);
 *   8. presence events applied (LevelEventLog live and replayed, Kafka mock),
 *      offline appends and login walks, and memory per host with 4 executor
 *      readers sharing one bitmap (bench/presence-offline.js, its quick or
 *      full sizes).
 *
 *   npm run bench                   # quick: fan-out 10^6 (both profiles), baseline 10^5; 3-5 min
 *   npm run bench -- --full         # fan-out 10^6, 10^7, 10^8 on both profiles, baseline 10^6
 *   node bench/suite.js [--full] [--no-record]
 *
 * --no-record prints the section without appending it. A step that fails is
 * reported in the section (and the suite exits 1); the other steps still run.
 * Run `tsc -b` first (`npm run bench` does).
 */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { RecipientListEncoder } = require('@herald/core/recipient-list');
const { runEmbeddedFanout } = require('./embedded-fanout');
const { runEmbeddedLatency } = require('./latency');
const { runConcurrent, concurrentTable } = require('./concurrent');
const { compareOne, parseArgs: baselineArgs, BUSY_LOAD } = require('./baseline');
const { redisVersion } = require('./baseline/run');
const { runProduction } = require('./production');
const { runFilterChainBench, table: filterChainTable } = require('./filter-chain');
const {
  runPresenceOffline,
  tables: presenceOfflineTables,
  defaults: presenceOfflineDefaults,
} = require('./presence-offline');
const { machine, commit, rssSampler, loadAverage, benchAudience, fmt } = require('./lib');

const MODES = {
  quick: {
    embeddedSizes: [1e6],
    productionSizes: [1e6],
    baselineSize: 1e5,
    physicalUins: 1e8,
    filterChainUins: 1e7,
    latencyTasks: 300,
    productionTasks: 100,
    concurrent: { tasks: 1000, recipients: 10_000, online: 0.3, probes: 30 },
  },
  full: {
    embeddedSizes: [1e6, 1e7, 1e8],
    productionSizes: [1e6, 1e7, 1e8],
    baselineSize: 1e6,
    physicalUins: 1e8,
    filterChainUins: 1e8,
    latencyTasks: 300,
    productionTasks: 100,
    concurrent: { tasks: 1000, recipients: 10_000, online: 0.3, probes: 30 },
  },
};
const ONLINE = 0.3;
const READ_CHUNK = 8 << 20;
const PHYSICAL_RUNS = 3;

const begun = performance.now();
const elapsedS = () => (performance.now() - begun) / 1000;
const log = (line) => process.stderr.write(`[${elapsedS().toFixed(1)} s] ${line}\n`);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Writes a valid list file of `count` ascending uins, 2^20 at a time (never the whole list in memory). */
function writeListFile(file, count) {
  const encoder = new RecipientListEncoder();
  const fd = fs.openSync(file, 'w');
  try {
    fs.writeSync(fd, Buffer.alloc(32), 0, 32, 0); // header placeholder, rewritten at the end
    const batch = new Uint32Array(1 << 20);
    for (let done = 0; done < count; done += batch.length) {
      const n = Math.min(batch.length, count - done);
      for (let i = 0; i < n; i++) batch[i] = (done + i) * 40;
      fs.writeSync(fd, encoder.body(batch.subarray(0, n)));
    }
    const header = encoder.header(0);
    fs.writeSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
}

/** Share of `file`'s bytes in the page cache (util-linux fincore), or undefined if fincore is missing. */
function pageCacheShare(file) {
  try {
    const resident = Number(
      execFileSync('fincore', ['--bytes', '--noheadings', '--output', 'RES', file], { encoding: 'utf8' }).trim(),
    );
    return resident / fs.statSync(file).size;
  } catch {
    return undefined;
  }
}

/** One sequential read of the whole file in READ_CHUNK reads into one buffer; seconds. */
function readOnce(file, buffer) {
  const fd = fs.openSync(file, 'r');
  try {
    const t0 = performance.now();
    while (fs.readSync(fd, buffer, 0, buffer.length, null) > 0);
    return (performance.now() - t0) / 1000;
  } finally {
    fs.closeSync(fd);
  }
}

/** Sum over a Uint32Array: the cheapest thing a stage can do with every id in memory. */
function scanOnce(words) {
  const t0 = performance.now();
  let sum = 0;
  for (let i = 0; i < words.length; i++) sum += words[i];
  const s = (performance.now() - t0) / 1000;
  if (sum < 0) throw new Error('unreachable: keeps the loop from being dropped');
  return s;
}

/** The machine's own limits: list file read rate and typed-array scan rate, median of PHYSICAL_RUNS each. */
function physicalReference(uins) {
  const file = path.join(os.tmpdir(), `herald-suite-physical-${process.pid}.hrl`);
  try {
    log(`  writing a ${fmt(uins)}-uin list file`);
    writeListFile(file, uins);
    const bytes = fs.statSync(file).size;
    const cachedBefore = pageCacheShare(file);
    const buffer = Buffer.allocUnsafeSlow(READ_CHUNK);
    const reads = Array.from({ length: PHYSICAL_RUNS }, () => readOnce(file, buffer));
    const cachedAfter = pageCacheShare(file);
    const words = new Uint32Array(uins);
    for (let i = 0; i < words.length; i++) words[i] = i * 40;
    scanOnce(words); // warm-up: the first pass also faults the pages in
    const scans = Array.from({ length: PHYSICAL_RUNS }, () => scanOnce(words));
    const readS = median(reads);
    const scanS = median(scans);
    return {
      uins,
      bytes,
      cachedBefore,
      cachedAfter,
      readS,
      firstReadS: reads[0],
      readIdsPerS: uins / readS,
      scanS,
      scanIdsPerS: uins / scanS,
    };
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/**
 * Runs one step: logs it, notes the load, samples this process's RSS during
 * `run` (after `prepare`, whose result it gets: set-up whose memory is not the
 * step's own, like a synthetic audience), and keeps a failure instead of
 * throwing. Garbage of earlier steps is collected first when node runs with
 * --expose-gc (npm run bench does), so the RSS at the start is this step's.
 */
async function step(results, name, run, prepare = async () => undefined) {
  const loadAtStart = loadAverage();
  log(`${name} (load ${loadAtStart.toFixed(2)})`);
  const t0 = performance.now();
  try {
    global.gc?.();
    const prepared = await prepare();
    const rssAtStartMiB = process.memoryUsage.rss() / 2 ** 20;
    const rss = rssSampler();
    let value;
    let peakRssMiB;
    try {
      value = await run(prepared);
    } finally {
      peakRssMiB = rss.stop();
    }
    const entry = {
      name,
      ok: true,
      value,
      loadAtStart,
      rssAtStartMiB,
      peakRssMiB,
      tookS: (performance.now() - t0) / 1000,
    };
    results.push(entry);
    log(`  done in ${entry.tookS.toFixed(1)} s`);
    return entry;
  } catch (error) {
    results.push({ name, ok: false, error, loadAtStart, tookS: (performance.now() - t0) / 1000 });
    log(`  FAILED: ${error.stack ?? error}`);
    return undefined;
  }
}

/** " (uncommitted: a, b, ...)" when tracked files under packages/ or bench/ differ from the commit, else "". */
function gitState() {
  try {
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', 'packages', 'bench'], {
      encoding: 'utf8',
      cwd: path.join(__dirname, '..'),
    })
      .split('\n')
      .map((line) => line.slice(3).trim())
      .filter(Boolean);
    if (changed.length === 0) return '';
    return ` (uncommitted changes in the working tree: ${changed.slice(0, 6).join(', ')}${changed.length > 6 ? `, and ${changed.length - 6} more` : ''})`;
  } catch {
    return '';
  }
}

/** Other benchmark scripts running on this host now (they share the 2 cores), as "args (pid N)". */
function otherBenchmarks() {
  try {
    return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
      .filter((m) => m && Number(m[1]) !== process.pid && /^(\S*\/)?node\s(.*\s)?bench\/[\w-]+\.js\b/.test(m[2]))
      .map((m) => `\`${m[2].trim()}\` (pid ${m[1]})`)
      .join(', ');
  } catch {
    return '';
  }
}

/** Production processes' peak RSS as "tier MiB" per process, grouped by tier. */
function processPeaks(processes) {
  const byTier = new Map();
  for (const p of processes) byTier.set(p.tier, [...(byTier.get(p.tier) ?? []), p.peakRssMiB]);
  const sum = processes.reduce((a, p) => a + (p.peakRssMiB ?? 0), 0);
  const parts = [...byTier].map(
    ([tier, peaks]) => `${tier} ${peaks.map((m) => (m === undefined ? '?' : fmt(m))).join(' + ')}`,
  );
  return `${parts.join(', ')}; sum ${fmt(sum)}`;
}

function section(mode, settings, results, meta) {
  const ok = (prefix) => results.filter((r) => r.ok && r.name.startsWith(prefix));
  const lines = [
    `### Benchmark suite, ${mode} — ${meta.date}, commit ${meta.commit}${meta.dirty}`,
    '',
    `Machine: ${machine()}. Command: \`${mode === 'full' ? 'npm run bench -- --full' : 'npm run bench'}\` (bench/suite.js). 1-minute load average at the start: ${meta.load.toFixed(2)}${meta.load > BUSY_LOAD ? ` (above ${BUSY_LOAD} on 2 cores: other work was running, so every rate below is lower, and every latency higher, than a quiet machine would give)` : ''}; each step's own is in its table. The suite took ${fmt(meta.tookS / 60, 1)} min${global.gc ? '; garbage was collected between steps' : ''}.${meta.neighbours ? ` Other benchmarks running at the start: ${meta.neighbours}.` : ''}`,
    '',
    '#### Fan-out end to end (list -> filters -> online check -> delivery / offline list), online share 0.3',
    '',
    '| profile | recipients | load at start | create -> COMPLETED (s) | recipients/s | pre-processing (s) | sending (s) | delivered | offline | filtered | peak RSS (MiB) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of ok('fan-out embedded')) {
    const v = r.value;
    lines.push(
      `| embedded | ${fmt(v.recipients)} | ${fmt(r.loadAtStart, 2)} | ${fmt(v.endToEndS, 2)} | ${fmt(v.rate)} | ${fmt(v.preprocessS, 2)} | ${fmt(v.sendS, 2)} | ${fmt(v.delivered)} | ${fmt(v.offline)} | ${fmt(v.removed)} | ${fmt(r.peakRssMiB)} (one process, of which ${fmt(r.rssAtStartMiB)} before the cluster started: Node and the synthetic audience) |`,
    );
  }
  for (const r of ok('production')) {
    const v = r.value;
    const removed = Object.values(v.report.removed).reduce((a, b) => a + b, 0);
    lines.push(
      `| production | ${fmt(v.recipients)} | ${fmt(r.loadAtStart, 2)} | ${fmt(v.fanoutS, 2)} | ${fmt(v.recipients / v.fanoutS)} | - | - | ${fmt(v.report.delivered)} | ${fmt(v.report.offline)} | ${fmt(removed)} | per process (VmHWM before stop): ${processPeaks(v.processes)}; benchmark process ${fmt(r.peakRssMiB)} |`,
    );
  }
  lines.push(
    '',
    "Embedded: upload excluded; every tier in the benchmark process, whose RSS is sampled every 20 ms during the run. Production: each tier its own process, MariaDB, ZooKeeper and the Kafka mock beside them on the same 2 cores (not counted in the RSS); its peak RSS per process is the kernel's high-water mark over the whole run (latency runs included). Pre-processing / sending split: embedded only (the production run times create -> COMPLETED over the API).",
  );
  if (mode === 'full') {
    lines.push(
      '',
      'Time against size:',
      '',
      '| profile | recipients | seconds | seconds per 10^6 recipients |',
      '|---|---:|---:|---:|',
    );
    for (const r of ok('fan-out embedded'))
      lines.push(
        `| embedded | ${fmt(r.value.recipients)} | ${fmt(r.value.endToEndS, 2)} | ${fmt((r.value.endToEndS * 1e6) / r.value.recipients, 3)} |`,
      );
    for (const r of ok('production'))
      lines.push(
        `| production | ${fmt(r.value.recipients)} | ${fmt(r.value.fanoutS, 2)} | ${fmt((r.value.fanoutS * 1e6) / r.value.recipients, 3)} |`,
      );
  }

  const [baseline] = ok('peer baseline');
  lines.push('', '#### Peer baseline: Herald vs BullMQ + Redis (goal: Herald >= 10x)', '');
  if (baseline) {
    const v = baseline.value;
    lines.push(
      '| recipients | load at start (Herald / baseline) | Herald (s) | Herald recipients/s | baseline (s) | baseline recipients/s | Herald / baseline |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      `| ${fmt(v.n)} | ${fmt(v.herald.loadAtStart, 2)} / ${fmt(v.baseline.loadAtStart, 2)} | ${fmt(v.heraldS, 2)} | ${fmt(v.n / v.heraldS)} | ${fmt(v.baseline.totalS, 2)} | ${fmt(v.baseline.rate)} | ${fmt(v.ratio, 1)}x |`,
      '',
      `bench/baseline.js's defaults (${settings.baselineArgs.processes} worker processes, concurrency ${settings.baselineArgs.concurrency}, ${fmt(settings.baselineArgs.batchSize)} uins a job), Redis ${settings.redis}; both sides reported the same delivered / offline / filtered counts (${fmt(v.herald.delivered)} / ${fmt(v.herald.offline)} / ${fmt(v.herald.removed)}). Herald's time is list upload + create -> COMPLETED.`,
    );
  }

  lines.push(
    '',
    '#### Task create -> first delivery (goal p99: < 100 ms embedded, < 250 ms production)',
    '',
    '| profile | tasks (one after another, 1,000 recipients each) | load at start | p50 (ms) | p99 (ms) | max (ms) |',
    '|---|---|---:|---:|---:|---:|',
  );
  for (const r of ok('latency embedded'))
    lines.push(
      `| embedded | ${r.value.tasks}, all online | ${fmt(r.loadAtStart, 2)} | ${fmt(r.value.p50, 1)} | ${fmt(r.value.p99, 1)} | ${fmt(r.value.max, 1)} |`,
    );
  for (const r of ok('production')) {
    for (const [when, p] of [
      ['cold (first tasks after start)', r.value.quiet],
      [`warm (right after the ${fmt(r.value.recipients)} fan-out)`, r.value.after],
    ]) {
      lines.push(
        `| production, ${when} | ${r.value.tasks} | ${fmt(r.loadAtStart, 2)} | ${fmt(p.p50)} | ${fmt(p.p99)} | ${fmt(p.max)} |`,
      );
    }
  }
  lines.push(
    '',
    'Production stamps first delivery by the executor (the reports topic), in whole ms; where the time goes per stage: `node bench/production.js`.',
  );

  const [concurrent] = ok('concurrent');
  if (concurrent)
    lines.push(
      '',
      `#### ${fmt(concurrent.value.tasks)} concurrent small tasks, embedded profile (load at start ${fmt(concurrent.loadAtStart, 2)})`,
      '',
      concurrentTable(concurrent.value),
    );

  const [physical] = ok('physical');
  const stages = ok('fan-out embedded').at(-1);
  if (physical) {
    const v = physical.value;
    const cache = (share) => (share === undefined ? 'unknown (no fincore)' : `${fmt(share * 100)}%`);
    const limit = 1 / (1 / v.readIdsPerS + 1 / v.scanIdsPerS);
    lines.push(
      '',
      `#### Physical reference on this machine (load at start ${fmt(physical.loadAtStart, 2)})`,
      '',
      '| measure | ids/s | fraction of the limit |',
      '|---|---:|---:|',
      `| raw sequential read of a ${fmt(v.uins)}-uin list file (${fmt(v.bytes / 2 ** 20)} MiB, 8 MiB reads, median of ${PHYSICAL_RUNS}: ${fmt(v.readS, 2)} s = ${fmt(v.bytes / v.readS / 2 ** 30, 2)} GiB/s; first read ${fmt(v.firstReadS, 2)} s) | ${fmt(v.readIdsPerS)} | - |`,
      `| sum over a Uint32Array of ${fmt(v.uins)} (median of ${PHYSICAL_RUNS}: ${fmt(v.scanS, 3)} s) | ${fmt(v.scanIdsPerS)} | - |`,
      `| limit for a stage that reads every id from the page cache and touches it once, on one core (1 / (1/read + 1/scan)) | ${fmt(limit)} | 1 |`,
      ...(stages
        ? [
            `| Herald pre-processing at ${fmt(stages.value.recipients)} (read, sort, dedupe, blacklist, no-resend, write the filtered list) | ${fmt(stages.value.recipients / stages.value.preprocessS)} | ${fmt(stages.value.recipients / stages.value.preprocessS / limit, 3)} |`,
            `| Herald sending at ${fmt(stages.value.recipients)} (read ranges, online check, delivery / offline lists, checkpoints) | ${fmt(stages.value.recipients / stages.value.sendS)} | ${fmt(stages.value.recipients / stages.value.sendS / limit, 3)} |`,
          ]
        : []),
      '',
      `Page cache: the file was just written, ${cache(v.cachedBefore)} of it resident before the first read and ${cache(v.cachedAfter)} after the last (fincore), so these are page-cache reads, not disk reads; nothing was dropped. The Herald rows are this run's largest embedded fan-out.`,
    );
  }

  const [filterChain] = ok('filter chain');
  if (filterChain)
    lines.push(
      '',
      `#### Filter chain (load at start ${fmt(filterChain.loadAtStart, 2)})`,
      '',
      filterChainTable(filterChain.value),
    );

  const [presenceOffline] = ok('presence and offline');
  if (presenceOffline) lines.push('', presenceOfflineTables(presenceOffline.value).trimEnd());

  const failed = results.filter((r) => !r.ok);
  if (failed.length > 0)
    lines.push(
      '',
      '#### Steps that failed',
      '',
      ...failed.map((r) => `- ${r.name}: ${String(r.error?.message ?? r.error).split('\n')[0]}`),
    );
  lines.push('');
  return lines.join('\n');
}

async function main() {
  const argv = process.argv.slice(2);
  for (const a of argv)
    if (!['--full', '--no-record'].includes(a)) throw new Error(`unknown argument ${a} (use --full, --no-record)`);
  const mode = argv.includes('--full') ? 'full' : 'quick';
  const plan = MODES[mode];
  const meta = {
    date: new Date().toISOString().slice(0, 10),
    commit: commit(),
    dirty: gitState(),
    load: loadAverage(),
    neighbours: otherBenchmarks(),
  };
  log(
    `benchmark suite, ${mode} mode; load average ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const results = [];

  await step(results, `physical reference (${fmt(plan.physicalUins)} uins)`, () =>
    physicalReference(plan.physicalUins),
  );
  for (const n of plan.embeddedSizes) {
    await step(
      results,
      `fan-out embedded ${fmt(n)}`,
      (audience) => runEmbeddedFanout(audience),
      async () => {
        log('  generating the audience');
        return benchAudience(n, ONLINE);
      },
    );
  }
  await step(results, `latency embedded (${plan.latencyTasks} tasks)`, () =>
    runEmbeddedLatency({ tasks: plan.latencyTasks, recipients: 1000 }),
  );
  await step(results, `concurrent (${fmt(plan.concurrent.tasks)} tasks of ${fmt(plan.concurrent.recipients)})`, () =>
    runConcurrent({ ...plan.concurrent, log: (line) => log(`  ${line}`) }),
  );
  const settings = { baselineArgs: { ...baselineArgs([]), sizes: [plan.baselineSize] } };
  await step(results, `peer baseline ${fmt(plan.baselineSize)}`, async () => {
    settings.redis = await redisVersion(settings.baselineArgs.redisUrl);
    return compareOne(plan.baselineSize, settings.baselineArgs);
  });
  for (const n of plan.productionSizes) {
    await step(results, `production ${fmt(n)}`, () => runProduction({ recipients: n, tasks: plan.productionTasks }));
  }

  await step(results, `filter chain ${fmt(plan.filterChainUins)}`, () =>
    runFilterChainBench({ recipients: plan.filterChainUins }),
  );
  await step(results, 'presence and offline', () => runPresenceOffline(presenceOfflineDefaults(mode)));

  meta.tookS = elapsedS();
  const text = section(mode, settings, results, meta);
  process.stdout.write(text + '\n');
  if (!argv.includes('--no-record')) {
    fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), '\n' + text);
    log('appended to bench/RESULTS.md');
  }
  if (results.some((r) => !r.ok)) process.exitCode = 1;
}

main()
  .catch((error) => {
    process.stderr.write(`bench:suite: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  })
  // Stopped clusters can leave a stray handle (a Redis or Kafka socket in its close timeout): the suite is done.
  .finally(() => setTimeout(() => process.exit(), 1000).unref());
