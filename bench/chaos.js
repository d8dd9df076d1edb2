#!/usr/bin/env node
/**
 * The full chaos run (docs/chaos.md): the production profile as real
 * processes, a broadcast of 10^6 recipients (10^7 with --full) split over a
 * few tasks, while a nemesis works through a fault schedule planned from a
 * seed: SIGKILL and restart of tier processes, a scheduler cut off and healed,
 * MariaDB and ZooKeeper restarted, the Kafka broker frozen. At the end: every
 * task final, delivered + offline + filtered = list, nobody lost, repeats only
 * in batches in flight at a fault. Exits 1 if a check failed.
 *
 *   npm run chaos [-- --full] [--recipients N] [--tasks 3] [--seed N] [--faults 200]
 *                 [--without kind,kind] [--record] [--logs]
 *
 * The seed is HERALD_CHAOS_SEED or --seed, else random; it is printed first.
 * --without drops fault kinds (kill, scheduler-cut, mariadb-restart,
 * zookeeper-restart, kafka-freeze). --record appends a summary to RESULTS.md.
 *
 * The harness is TypeScript (packages/production/test/chaos/, shared with the
 * CI test); it is transpiled on load here, and imports the built packages.
 */
const fs = require('node:fs');
const path = require('node:path');
const ts = require('typescript');
const { machine, commit, arg, loadAverage } = require('./lib');

require.extensions['.ts'] = (module, filename) => {
  const { outputText } = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    fileName: filename,
  });
  module._compile(outputText, filename);
};
const { runChaos, CHAOS_DEFAULTS } = require('../packages/production/test/chaos/harness.ts');
const { FAULT_KINDS } = require('../packages/production/test/chaos/schedule.ts');

const begun = performance.now();
const log = (line) => process.stderr.write(`[${((performance.now() - begun) / 1000).toFixed(1)} s] ${line}\n`);

async function main() {
  const full = process.argv.includes('--full');
  const seedArg = arg('--seed', process.env.HERALD_CHAOS_SEED);
  const seed = seedArg === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(seedArg);
  const without = String(arg('--without', '')).split(',').filter(Boolean);
  const unknown = without.filter((k) => !FAULT_KINDS.includes(k));
  if (unknown.length > 0 || !Number.isInteger(seed))
    throw new Error(
      `bad arguments: seed ${seedArg}, unknown fault kinds ${unknown.join(', ')} (kinds: ${FAULT_KINDS.join(', ')})`,
    );
  const options = {
    ...CHAOS_DEFAULTS,
    seed,
    recipients: Number(arg('--recipients', full ? 10_000_000 : 1_000_000)),
    tasks: Number(arg('--tasks', CHAOS_DEFAULTS.tasks)),
    // Planned generously: the nemesis stops starting faults once every task has ended.
    faults: Number(arg('--faults', 200)),
    kinds: FAULT_KINDS.filter((k) => !without.includes(k)),
    finishTimeoutMs: full ? 1_800_000 : 600_000,
    log,
  };
  const load = loadAverage();
  const summary = await runChaos(options);
  if (process.argv.includes('--logs') || summary.problems.length > 0) process.stderr.write(`${summary.logs ?? ''}\n`);
  for (const p of summary.problems) log(`PROBLEM: ${p}`);

  const fmt = (n) => n.toLocaleString('en-US');
  const kills = {};
  for (const f of summary.faults)
    if (f.kind === 'kill') kills[f.target.replace(/-\d+$/, '')] = (kills[f.target.replace(/-\d+$/, '')] ?? 0) + 1;
  const sum = (key) => summary.tasks.reduce((total, t) => total + t[key], 0);
  const command = `npm run chaos --${full ? ' --full' : ''}${arg('--recipients') ? ` --recipients ${options.recipients}` : ''} --seed ${seed}${without.length ? ` --without ${without.join(',')}` : ''}`;
  const table = [
    `### Chaos run, production profile — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}, seed ${seed}`,
    '',
    `Machine: ${machine()}; load average ${load.toFixed(2)} at start. Processes: 2 interfaces, 3 schedulers (APTA), 2 dispatchers, 2 executors, 2 controllers, 1 presence agent; a MariaDB, a ZooKeeper and a librdkafka mock Kafka of the run's own. scheduler.unitStallMs 2000, slots ${options.slots}, batches of ${fmt(options.batchSize)}, units of ${fmt(options.unitSize)}. Command: \`${command}\` (replay: the same seed).`,
    '',
    '| measure | value |',
    '|---|---:|',
    `| recipients, tasks | ${fmt(options.recipients)} in ${summary.tasks.length} tasks (${summary.tasks.map((t) => t.state).join(', ')}) |`,
    `| faults injected | ${summary.faults.length}: ${Object.entries(summary.byKind)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')} |`,
    `| processes killed, by tier | ${
      Object.entries(kills)
        .map(([tier, n]) => `${tier} ${n}`)
        .join(', ') || 'none'
    } |`,
    `| delivered + offline + filtered = list | ${fmt(sum('delivered'))} + ${fmt(sum('offline'))} + ${fmt(sum('filtered'))} = ${fmt(sum('list'))} |`,
    `| recipients lost | ${fmt(summary.lost)} |`,
    `| duplicates (repeated delivery records, same key task + uin) | ${fmt(summary.repeats)} in ${fmt(sum('repeatedBatches'))} batches (bound ${fmt(sum('repeatBound'))}) |`,
    `| checks failed | ${summary.problems.length === 0 ? 'none' : summary.problems.map((p) => p.replace(/\|/g, '/')).join('; ')} |`,
    `| run time (servers, cluster, broadcast, checks) | ${summary.seconds.toFixed(0)} s |`,
    '',
  ].join('\n');
  process.stdout.write(table + '\n');
  if (process.argv.includes('--record')) fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), '\n' + table);
  if (summary.problems.length > 0) process.exitCode = 1;
}

main().catch((error) => {
  process.stderr.write(`chaos: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
