#!/usr/bin/env node
/**
 * Fan-out benchmark: one broadcast end to end on the embedded profile, through
 * the real HTTP API and tiers (list -> filters -> online check -> delivery /
 * offline list), for each size asked. Prints a table and, with --record,
 * appends it to bench/RESULTS.md with the date, machine and commit.
 *
 *   npm run bench:fanout                       # 10^6 and 10^7 recipients, 30% online
 *   npm run bench:fanout -- --sizes 1e6 --online 0.3 --record
 *   npm run bench:fanout -- --sizes 1e6 --template    # personalised content (docs/delivery.md)
 *   npm run bench:fanout -- --sizes 1e7 --records-cost --runs 3
 *       # what keeping the delivery records costs the send path (docs/recipient-truth.md): the same
 *       # broadcast with and without the executors' record writes, alternately, best of --runs each
 *
 * (`npm run bench` is the whole suite, bench/suite.js, which runs this same
 * broadcast through bench/embedded-fanout.js among its steps.)
 *
 * Rates: "end to end" is task creation to COMPLETED (pre-processing included,
 * upload excluded: it is reported on its own). Peak RSS is this process's
 * maximum resident set (every tier runs in it).
 */
const { appendFile } = require('node:fs/promises');
const path = require('node:path');
const { runEmbeddedFanout } = require('./embedded-fanout');
const { machine, commit, benchAudience, loadAverage } = require('./lib');

function parseArgs(argv) {
  const args = { sizes: [1e6, 1e7], online: 0.3, record: false, template: false, recordsCost: false, runs: 3 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--online') args.online = Number(argv[++i]);
    else if (argv[i] === '--record') args.record = true;
    else if (argv[i] === '--template') args.template = true;
    else if (argv[i] === '--records-cost') args.recordsCost = true;
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (args.sizes.some((n) => !(n >= 1)) || !(args.online >= 0 && args.online <= 1) || !(args.runs >= 1))
    throw new Error('bad --sizes, --online or --runs');
  return args;
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
    results.push({
      recipients: n,
      bestSendS: { with: best(runs.with, 'sendS'), without: best(runs.without, 'sendS') },
      bestEndToEndS: { with: best(runs.with, 'endToEndS'), without: best(runs.without, 'endToEndS') },
      bestSendCpuS: { with: best(runs.with, 'sendCpuS'), without: best(runs.without, 'sendCpuS') },
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
  const rows = [];
  for (const n of args.sizes) {
    process.stderr.write(`fan-out ${n.toLocaleString('en-US')} recipients ...\n`);
    const row = await runEmbeddedFanout(benchAudience(n, args.online), { template: args.template });
    rows.push(row);
    process.stderr.write(`  ${Math.round(row.rate).toLocaleString('en-US')} recipients/s end to end\n`);
  }
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const table = [
    `### Fan-out, embedded profile${args.template ? ', template content' : ''} — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. Online share ${args.online}.${args.template ? ' Content: a template (one attribute lookup per batch, a render per online recipient; half the online users have attributes).' : ''} Command: \`npm run bench:fanout -- --sizes ${args.sizes.join(',')} --online ${args.online}${args.template ? ' --template' : ''}\`.`,
    '',
    '| recipients | end to end (s) | recipients/s | pre-processing (s) | sending (s) | delivered | offline | filtered | upload (s) | peak RSS (MiB) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.recipients)} | ${fmt(r.endToEndS, 2)} | ${fmt(r.rate)} | ${fmt(r.preprocessS, 2)} | ${fmt(r.sendS, 2)} | ${fmt(r.delivered)} | ${fmt(r.offline)} | ${fmt(r.removed)} | ${fmt(r.uploadS, 2)} | ${fmt(r.peakRssMiB)} |`,
    ),
    '',
  ].join('\n');
  process.stdout.write(table + '\n');
  if (args.record) await appendFile(path.join(__dirname, 'RESULTS.md'), '\n' + table);
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
