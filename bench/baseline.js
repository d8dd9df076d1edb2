#!/usr/bin/env node
/**
 * Peer baseline: the same broadcast two ways in one process, Herald on the
 * embedded profile (exactly as bench/fanout.js runs it) and a BullMQ + Redis
 * build of it (bench/baseline/run.js), and the ratio of their rates.
 *
 *   npm run bench:baseline -- --sizes 1e5,1e6 [--record]
 *   node bench/baseline.js --sizes 1e5 --batch 1000 --concurrency 8 --workers 1 --redis redis://127.0.0.1:6379
 *   node bench/baseline.js --sizes 1e5 --processes 2     # one Worker in each of 2 child processes
 *
 * Both sides get the same synthetic audience (seed 42: 2% duplicates, 1%
 * blacklisted, --online share online) and must report the same delivered,
 * offline and filtered counts, or the run fails. Times: Herald's is list
 * upload + task creation to COMPLETED; the baseline's is addBulk of the list's
 * jobs to the last job completed: each is its side's whole path from the
 * list in memory to every recipient delivered or stored. Setup before the
 * clock (blacklist, online state, servers and workers started) is excluded on
 * both sides. Peak RSS is sampled per run (bench/lib.js rssSampler); the
 * baseline's Redis memory is Redis's used_memory growth over the run.
 * bench/suite.js calls compareOne (one size, both sides) directly.
 */
const { appendFile } = require('node:fs/promises');
const path = require('node:path');
const { runEmbeddedFanout } = require('./embedded-fanout');
const { runBullmqBaseline, redisVersion, BASELINE_DEFAULTS } = require('./baseline/run');
const { machine, commit, rssSampler, loadAverage, benchAudience } = require('./lib');

const BUSY_LOAD = 1.5;

function parseArgs(argv) {
  const args = { sizes: [1e5, 1e6], online: 0.3, record: false, ...BASELINE_DEFAULTS };
  const numeric = {
    '--online': 'online',
    '--batch': 'batchSize',
    '--workers': 'workers',
    '--processes': 'processes',
    '--concurrency': 'concurrency',
    '--daily-cap': 'dailyCap',
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--redis') args.redisUrl = argv[++i];
    else if (argv[i] === '--record') args.record = true;
    else if (numeric[argv[i]]) args[numeric[argv[i]]] = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  const positiveInt = (n) => Number.isInteger(n) && n >= 1;
  if (args.sizes.some((n) => !positiveInt(n))) throw new Error('--sizes: positive integers, e.g. 1e5,1e6');
  if (!(args.online >= 0 && args.online <= 1)) throw new Error('--online: a share between 0 and 1');
  for (const k of ['batchSize', 'workers', 'concurrency', 'dailyCap'])
    if (!positiveInt(args[k])) throw new Error(`--${k}: a positive integer`);
  if (!(positiveInt(args.processes) || args.processes === 0))
    throw new Error('--processes: 0 (workers in this process) or a positive integer');
  return args;
}

async function measure(run) {
  const loadAtStart = loadAverage();
  const rss = rssSampler();
  try {
    const row = await run();
    return { ...row, loadAtStart, peakRssMiB: rss.stop() };
  } finally {
    rss.stop();
  }
}

async function compareOne(n, args) {
  const audience = benchAudience(n, args.online);
  process.stderr.write(`${n.toLocaleString('en-US')} recipients: Herald (load ${loadAverage().toFixed(2)}) ...\n`);
  const herald = await measure(() => runEmbeddedFanout(audience));
  const heraldS = herald.uploadS + herald.endToEndS;
  process.stderr.write(`  ${heraldS.toFixed(2)} s\n  baseline (load ${loadAverage().toFixed(2)}) ...\n`);
  const baseline = await measure(() => runBullmqBaseline(audience, args));
  process.stderr.write(`  ${baseline.totalS.toFixed(2)} s\n`);
  for (const [what, h, b] of [
    ['delivered', herald.delivered, baseline.delivered],
    ['offline', herald.offline, baseline.offline],
    ['filtered', herald.removed, baseline.filtered],
  ]) {
    if (h !== b) throw new Error(`${n} recipients: Herald ${what} ${h}, baseline ${what} ${b}`);
  }
  return { n, herald, heraldS, baseline, ratio: baseline.totalS / heraldS };
}

function section(args, rows, redis) {
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const loads = rows.flatMap((r) => [r.herald.loadAtStart, r.baseline.loadAtStart]);
  const busy = loads.some((l) => l > BUSY_LOAD);
  return [
    `### Peer baseline: Herald vs BullMQ + Redis — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}; Redis ${redis} on 127.0.0.1 (shared with other work), BullMQ ${require('bullmq/package.json').version}, ioredis ${require('ioredis/package.json').version}. Online share ${args.online}. Command: \`node bench/baseline.js --sizes ${args.sizes.join(',')} --batch ${args.batchSize} --concurrency ${args.concurrency} ${args.processes > 0 ? `--processes ${args.processes}` : `--workers ${args.workers}`}\`.`,
    '',
    '| recipients | load avg at start (Herald / baseline) | Herald (s) | Herald recipients/s | baseline (s) | baseline recipients/s | Herald / baseline | delivered | offline | filtered | peak RSS Herald (MiB) | peak RSS baseline (MiB) | Redis memory, baseline (MiB) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.n)} | ${fmt(r.herald.loadAtStart, 2)} / ${fmt(r.baseline.loadAtStart, 2)} | ${fmt(r.heraldS, 2)} | ${fmt(r.n / r.heraldS)} | ${fmt(r.baseline.totalS, 2)} | ${fmt(r.baseline.rate)} | ${fmt(r.ratio, 1)}x | ${fmt(r.baseline.delivered)} | ${fmt(r.baseline.offline)} | ${fmt(r.baseline.filtered)} | ${fmt(r.herald.peakRssMiB)} | ${fmt(r.baseline.peakRssMiB + r.baseline.childrenPeakRssMiB)} | ${fmt(r.baseline.redisMiB)} |`,
    ),
    '',
    'How the two sides ran:',
    "- Herald: `bench/fanout.js`'s run (bench/embedded-fanout.js); its time here is list upload + task creation to COMPLETED",
    `  (${rows.map((r) => `${fmt(r.herald.uploadS, 2)} + ${fmt(r.herald.endToEndS, 2)} s`).join(', ')}).`,
    `- Baseline (bench/baseline/): the list as ${rows.map((r) => fmt(r.baseline.jobs)).join(', ')} BullMQ jobs of ${fmt(args.batchSize)} uins (addBulk, ${rows.map((r) => `${fmt(r.baseline.enqueueS, 2)} s`).join(', ')}),`,
    `  ${args.processes > 0 ? `one Worker in each of ${args.processes} child processes` : `${args.workers} Worker(s) in the benchmark process`} at concurrency ${args.concurrency}; per job three pipelined round trips: SADD per uin (dedupe) + SMISMEMBER`,
    '  (blacklist) + GETBIT per uin (online bitmap, SETBIT beforehand); INCR + EXPIRE NX per kept uin (daily cap of',
    `  ${args.dailyCap}); RPUSH per offline uin to its list, online uins to the same FileDeliverySink as Herald. Its counts reconciled,`,
    '  the sink file, offline lists and cap counters in Redis matched them, and every key of the run was deleted after.',
    ...(args.processes > 0
      ? [
          "- The baseline's peak RSS is this process's plus each worker process's own peak, summed (an upper bound: the peaks need not coincide).",
        ]
      : []),
    `- 1-minute load average at the start of each run is in the table: the 2 cores are shared with other work${busy ? `, and at least one run started above ${BUSY_LOAD}: the machine was visibly busy, so these figures are lower than a quiet machine would give, on both sides` : ''}.`,
    '',
  ].join('\n');
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const redis = await redisVersion(args.redisUrl);
  const rows = [];
  for (const n of args.sizes) rows.push(await compareOne(n, args));
  const text = section(args, rows, redis);
  process.stdout.write(text + '\n');
  if (args.record) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + text);
}

module.exports = { compareOne, parseArgs, BUSY_LOAD };

if (require.main === module) {
  main().catch((error) => {
    process.stderr.write(`bench:baseline: ${error.stack ?? error}\n`);
    process.exitCode = 1;
  });
}
