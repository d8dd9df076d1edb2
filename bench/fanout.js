#!/usr/bin/env node
/**
 * Fan-out benchmark: one broadcast end to end on the embedded profile, through
 * the real HTTP API and tiers (list -> filters -> online check -> delivery /
 * offline list), for each size asked. Prints a table and, with --record,
 * appends it to bench/RESULTS.md with the date, machine and commit.
 *
 *   npm run bench:fanout                       # 10^6 and 10^7 recipients, 30% online, best of 3 each
 *   npm run bench:fanout -- --sizes 1e8 --runs 1
 *   npm run bench:fanout -- --sizes 1e6 --online 0.3 --record
 *   npm run bench:fanout -- --sizes 1e6 --template    # personalised content (docs/delivery.md)
 *   npm run bench:fanout -- --sizes 1e7 --breakdown   # + where the time goes, per stage (bench/breakdown.js)
 *   npm run bench:fanout -- --sizes 1e8 --stages      # and the peak RSS of each stage (bench/lib.js stagePeaks)
 *   npm run bench:fanout -- --filter-workers 1        # the filter chain on the dispatcher's thread (dispatcher.filterWorkers)
 *   npm run bench:fanout -- --batch-size 4096         # dispatcher.batchSize (docs/capacity.md, "Batch size")
 *   npm run bench:fanout -- --sizes 1e7 --records-cost --runs 3
 *       # what keeping the delivery records costs the send path (docs/recipient-truth.md): the same
 *       # broadcast with and without the executors' record writes in --runs pairs: the median of the
 *       # pairs' ratios with its 95% interval (bench/paired.js), and the best of each side
 *
 * (`npm run bench` is the whole suite, bench/suite.js, which runs this same
 * broadcast through bench/embedded-fanout.js among its steps.)
 *
 * Rates: "end to end" is task creation to COMPLETED (pre-processing included,
 * upload excluded: it is reported on its own). Peak RSS is this process's
 * maximum resident set (every tier runs in it).
 *
 * --breakdown runs the same thing again as a child under `--cpu-prof` (every
 * thread, the filter chain's workers included), which records each stage's
 * counters (CPU, GC, event-loop delay, bytes written, queue gauges) into the
 * profile directory; this process then cuts the profiles at the stage
 * boundaries and prints (and with --record appends) the breakdown.
 */
const { spawn } = require('node:child_process');
const { appendFile, mkdtemp, readFile, writeFile } = require('node:fs/promises');
const { monitorEventLoopDelay, PerformanceObserver } = require('node:perf_hooks');
const os = require('node:os');
const path = require('node:path');
const { runEmbeddedFanout } = require('./embedded-fanout');
const { machine, commit, benchAudience, stagePeaks, loadAverage } = require('./lib');
const breakdown = require('./breakdown');
const { pairedCostPercent } = require('./paired');

/** Set in the child a --breakdown run starts: its profile directory. */
const BREAKDOWN_DIR_ENV = 'HERALD_BENCH_BREAKDOWN_DIR';

function parseArgs(argv) {
  const args = {
    sizes: [1e6, 1e7],
    online: 0.3,
    record: false,
    template: false,
    breakdown: false,
    stages: false,
    recordsCost: false,
    runs: 3,
  };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--online') args.online = Number(argv[++i]);
    else if (argv[i] === '--record') args.record = true;
    else if (argv[i] === '--template') args.template = true;
    else if (argv[i] === '--breakdown') args.breakdown = true;
    else if (argv[i] === '--stages') args.stages = true;
    else if (argv[i] === '--filter-workers') args.filterWorkers = Number(argv[++i]);
    else if (argv[i] === '--batch-size') args.batchSize = Number(argv[++i]);
    else if (argv[i] === '--records-cost') args.recordsCost = true;
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (args.sizes.some((n) => !(n >= 1)) || !(args.online >= 0 && args.online <= 1) || !(args.runs >= 1))
    throw new Error('bad --sizes, --online or --runs');
  return args;
}

/**
 * This process's counters for the stage recorder: /proc, GC (perf_hooks 'gc'
 * entries), event-loop delay since the previous reading, and the queue gauges
 * of the cluster's meter.
 */
function selfReader() {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const gc = { s: 0, count: 0 };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gc.s += entry.duration / 1000;
      gc.count++;
    }
  }).observe({ entryTypes: ['gc'] });
  return (cluster) => async () => {
    const lag = { lagP99S: delay.percentile(99) / 1e9, lagMaxS: delay.max / 1e9 };
    delay.reset();
    const metrics = breakdown.parseExposition((await cluster.meter.exposition()).body);
    return {
      ...breakdown.procCounters(process.pid),
      gcS: gc.s,
      gcCount: gc.count,
      ...lag,
      queues: breakdown.queueDepths(metrics),
    };
  };
}

/** In the profiled child: a recorder per size, following this process through the stages runEmbeddedFanout names. */
function stageHook(readerOf) {
  let recorder;
  let sampling;
  const hook = async (stage, cluster) => {
    recorder ??= new breakdown.StageRecorder([{ name: 'embedded (every tier)', pid: process.pid }], readerOf(cluster));
    await recorder.mark(stage);
    if (stage === 'end') clearInterval(sampling);
    else sampling ??= setInterval(() => void recorder.sample(), 1000);
  };
  return { hook, stages: () => recorder.stages() };
}

/** Runs this script again under --cpu-prof; returns the stages it recorded, its pid and the profile directory. */
async function runProfiledChild() {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-breakdown-'));
  const child = spawn(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...process.execArgv, __filename, ...process.argv.slice(2)],
    { stdio: 'inherit', env: { ...process.env, [BREAKDOWN_DIR_ENV]: dir } },
  );
  const code = await new Promise((resolve) => child.once('exit', (status) => resolve(status)));
  if (code !== 0) throw new Error(`the profiled run exited ${code}`);
  const recorded = JSON.parse(await readFile(path.join(dir, 'stages.json'), 'utf8'));
  return { dir, pid: child.pid, recorded };
}

/** The breakdown section of a --breakdown run, from what its profiled child recorded. */
function breakdownSection({ dir, pid, recorded }, args, load) {
  const processes = [{ name: 'embedded (every tier)', pid }];
  return [
    `### Fan-out breakdown, embedded profile — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. Load average (1 min) ${load.start.toFixed(2)} at the start, ${load.end.toFixed(2)} at the end. Online share ${args.online}. Command: \`node bench/fanout.js --sizes ${args.sizes.join(',')} --online ${args.online} --breakdown\`. One process runs every tier; the run is profiled (\`--cpu-prof\`, every thread: sampling adds a few per cent of CPU, so the rates are a little below a plain run's). CPU is all threads (/proc); "JS busy" is the thread's non-idle samples; GC from perf_hooks; the event-loop delay is the worst 1-s window's p99 and max; written bytes from /proc/self/io.`,
    '',
    ...recorded.flatMap(({ recipients, stages }) => [
      `#### ${recipients.toLocaleString('en-US')} recipients`,
      '',
      breakdown.breakdownMarkdown(stages, breakdown.summariseProfiles(dir, stages, processes), {
        profileDir: dir,
        recipients,
      }),
    ]),
  ].join('\n');
}

/**
 * The send path with and without the delivery records' writes, alternately
 * (--runs pairs, each in the other order, after a warm-up broadcast), on the same audience: the best
 * sending phase of each and what the records add to it. Prints JSON with the
 * 1-minute load average at each run.
 */
async function recordsCost(args) {
  const results = [];
  for (const n of args.sizes) {
    const audience = benchAudience(n, args.online);
    const runs = { with: [], without: [] };
    // A first broadcast in a process is slower (compilation, caches): one of 10^6 first, not counted.
    await runEmbeddedFanout(benchAudience(Math.min(n, 1e6), args.online));
    for (let run = 0; run < args.runs; run++)
      // Each pair in the other order, so neither side always runs on the heels of the other.
      for (const records of run % 2 === 0 ? [true, false] : [false, true]) {
        const row = await runEmbeddedFanout(audience, { records });
        const sample = { sendS: row.sendS, sendCpuS: row.sendCpuS, endToEndS: row.endToEndS, load1: loadAverage() };
        runs[records ? 'with' : 'without'].push(sample);
        process.stderr.write(`  ${n} ${records ? 'with' : 'without'} records: ${JSON.stringify(sample)}\n`);
      }
    const best = (samples, key) => Math.min(...samples.map((s) => s[key]));
    const cost = (key) => best(runs.with, key) / best(runs.without, key) - 1;
    const paired = (key) =>
      pairedCostPercent(
        runs.with.map((s) => s[key]),
        runs.without.map((s) => s[key]),
      );
    results.push({
      recipients: n,
      bestSendS: { with: best(runs.with, 'sendS'), without: best(runs.without, 'sendS') },
      bestEndToEndS: { with: best(runs.with, 'endToEndS'), without: best(runs.without, 'endToEndS') },
      bestSendCpuS: { with: best(runs.with, 'sendCpuS'), without: best(runs.without, 'sendCpuS') },
      // The figures to read (bench/paired.js says why): each pair's ratio, their median and its 95% interval.
      pairedSendCostPercent: paired('sendS'),
      pairedSendCpuCostPercent: paired('sendCpuS'),
      pairedEndToEndCostPercent: paired('endToEndS'),
      sendCostPercent: Number((100 * cost('sendS')).toFixed(1)),
      sendCpuCostPercent: Number((100 * cost('sendCpuS')).toFixed(1)),
      endToEndCostPercent: Number((100 * cost('endToEndS')).toFixed(1)),
      runs,
    });
  }
  process.stdout.write(
    JSON.stringify({ date: new Date().toISOString(), commit: commit(), machine: machine(), results }, null, 2) + '\n',
  );
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.recordsCost) return recordsCost(args);
  const profiledDir = process.env[BREAKDOWN_DIR_ENV];
  if (args.breakdown && profiledDir === undefined) {
    const load = { start: loadAverage() };
    const child = await runProfiledChild();
    load.end = loadAverage();
    const section = breakdownSection(child, args, load);
    process.stdout.write(section + '\n');
    if (args.record) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + section);
    return;
  }
  const readerOf = profiledDir === undefined ? undefined : selfReader();
  const recorded = [];
  const rows = [];
  const loadBefore = loadAverage();
  for (const n of args.sizes) {
    process.stderr.write(`fan-out ${n.toLocaleString('en-US')} recipients ...\n`);
    const stages = args.stages ? stagePeaks() : undefined;
    // With --stages the audience's own making is a stage too: it is most of the bench's share of the peak.
    stages?.enter('audience');
    const audience = benchAudience(n, args.online);
    const profiled = readerOf && stageHook(readerOf);
    // A profiled or per-stage run is one broadcast: its recorders follow one task.
    const runs = profiled || stages ? 1 : args.runs;
    const all = [];
    for (let run = 0; run < runs; run++) {
      const row = await runEmbeddedFanout(audience, {
        template: args.template,
        stages,
        filterWorkers: args.filterWorkers,
        batchSize: args.batchSize,
        ...(profiled ? { onStage: profiled.hook } : {}),
      });
      all.push(row);
      process.stderr.write(
        `  run ${run + 1}: ${Math.round(row.rate).toLocaleString('en-US')} recipients/s end to end\n`,
      );
    }
    // The first run also warms this process up (its code compiled, its heap grown): the best is the
    // rate of a running service; the first is reported beside it.
    const row = all.reduce((best, r) => (r.endToEndS < best.endToEndS ? r : best));
    row.runsEndToEndS = all.map((r) => r.endToEndS);
    row.peakRssMiB = Math.max(...all.map((r) => r.peakRssMiB));
    if (profiled) recorded.push({ recipients: n, stages: profiled.stages() });
    if (stages !== undefined) {
      row.stages = stages.peaks();
      // Resetting the high-water mark resets maxRSS with it: the run's peak is its highest stage.
      row.peakRssMiB = Math.max(...row.stages.map((s) => s.peakMiB));
    }
    rows.push(row);
  }
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const table = [
    `### Fan-out, embedded profile${args.template ? ', template content' : ''} — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. Online share ${args.online}. Best of ${rows[0]?.runsEndToEndS.length ?? 1} run(s) per size in this one process, each on a fresh cluster (the figures are the best run's; peak RSS over all).${args.template ? ' Content: a template (one attribute lookup per batch, a render per online recipient; half the online users have attributes).' : ''} Command: \`npm run bench:fanout -- --sizes ${args.sizes.join(',')} --online ${args.online} --runs ${args.runs}${args.template ? ' --template' : ''}${args.stages ? ' --stages' : ''}${args.filterWorkers === undefined ? '' : ` --filter-workers ${args.filterWorkers}`}${args.batchSize === undefined ? '' : ` --batch-size ${args.batchSize}`}\`.`,
    '',
    '| recipients | end to end (s) | recipients/s | pre-processing (s) | sending (s) | delivered | offline | filtered | upload (s) | peak RSS (MiB) | each run end to end, first one cold (s) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.recipients)} | ${fmt(r.endToEndS, 2)} | ${fmt(r.rate)} | ${fmt(r.preprocessS, 2)} | ${fmt(r.sendS, 2)} | ${fmt(r.delivered)} | ${fmt(r.offline)} | ${fmt(r.removed)} | ${fmt(r.uploadS, 2)} | ${fmt(r.peakRssMiB)} | ${r.runsEndToEndS.map((t) => fmt(t, 2)).join(' / ')} |`,
    ),
    '',
    `Load average (1 min): ${loadBefore.toFixed(2)} at the start, ${loadAverage().toFixed(2)} at the end.`,
    '',
    ...rows.flatMap((r) =>
      r.stages === undefined
        ? []
        : [
            `Peak RSS per stage at ${fmt(r.recipients)} recipients (VmHWM, reset as each stage starts; the task's states as polled every 10 ms):`,
            '',
            '| stage | peak RSS (MiB) | time (s) |',
            '|---|---:|---:|',
            ...r.stages.map((s) => `| ${s.stage} | ${fmt(s.peakMiB)} | ${fmt(s.ms / 1000, 2)} |`),
            '',
          ],
    ),
  ].join('\n');
  process.stdout.write(table + '\n');
  if (args.record) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + table);
  if (profiledDir !== undefined) await writeFile(path.join(profiledDir, 'stages.json'), JSON.stringify(recorded));
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
