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
 *   npm run bench:fanout -- --sizes 1e8 --stages      # and the peak RSS of each stage (bench/lib.js stagePeaks)
 *   npm run bench:fanout -- --filter-workers 1        # the filter chain on the dispatcher's thread (dispatcher.filterWorkers)
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
const { machine, commit, benchAudience, stagePeaks, loadAverage } = require('./lib');

function parseArgs(argv) {
  const args = { sizes: [1e6, 1e7], online: 0.3, record: false, template: false, stages: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--online') args.online = Number(argv[++i]);
    else if (argv[i] === '--record') args.record = true;
    else if (argv[i] === '--template') args.template = true;
    else if (argv[i] === '--stages') args.stages = true;
    else if (argv[i] === '--filter-workers') args.filterWorkers = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (args.sizes.some((n) => !(n >= 1)) || !(args.online >= 0 && args.online <= 1))
    throw new Error('bad --sizes or --online');
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const rows = [];
  const loadBefore = loadAverage();
  for (const n of args.sizes) {
    process.stderr.write(`fan-out ${n.toLocaleString('en-US')} recipients ...\n`);
    const stages = args.stages ? stagePeaks() : undefined;
    // With --stages the audience's own making is a stage too: it is most of the bench's share of the peak.
    stages?.enter('audience');
    const audience = benchAudience(n, args.online);
    const row = await runEmbeddedFanout(audience, {
      template: args.template,
      stages,
      filterWorkers: args.filterWorkers,
    });
    if (stages !== undefined) {
      row.stages = stages.peaks();
      // Resetting the high-water mark resets maxRSS with it: the run's peak is its highest stage.
      row.peakRssMiB = Math.max(...row.stages.map((s) => s.peakMiB));
    }
    rows.push(row);
    process.stderr.write(`  ${Math.round(row.rate).toLocaleString('en-US')} recipients/s end to end\n`);
  }
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const table = [
    `### Fan-out, embedded profile${args.template ? ', template content' : ''} — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. Online share ${args.online}.${args.template ? ' Content: a template (one attribute lookup per batch, a render per online recipient; half the online users have attributes).' : ''} Command: \`npm run bench:fanout -- --sizes ${args.sizes.join(',')} --online ${args.online}${args.template ? ' --template' : ''}${args.stages ? ' --stages' : ''}${args.filterWorkers === undefined ? '' : ` --filter-workers ${args.filterWorkers}`}\`.`,
    '',
    '| recipients | end to end (s) | recipients/s | pre-processing (s) | sending (s) | delivered | offline | filtered | upload (s) | peak RSS (MiB) |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.recipients)} | ${fmt(r.endToEndS, 2)} | ${fmt(r.rate)} | ${fmt(r.preprocessS, 2)} | ${fmt(r.sendS, 2)} | ${fmt(r.delivered)} | ${fmt(r.offline)} | ${fmt(r.removed)} | ${fmt(r.uploadS, 2)} | ${fmt(r.peakRssMiB)} |`,
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
}

main().catch((error) => {
  process.stderr.write(`bench: ${error.stack ?? error}\n`);
  process.exitCode = 1;
});
