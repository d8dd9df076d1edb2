#!/usr/bin/env node
/**
 * What a dry run costs: `POST /api/v1/tasks?dryRun=true` on the embedded
 * profile, which runs the task's real filter chain over its list in the
 * interface process (docs/api.md, "Dry run"; above 4,194,304 recipients over
 * an evenly spaced sample). For each size: the answer's latency (each of
 * --runs runs, after one warm-up), what it counted, and this process's peak
 * RSS (every tier runs in it). Nothing is created: the bench checks that the
 * store holds no task afterwards.
 *
 *   node bench/dry-run.js                          # 10^6 and 10^7 recipients
 *   node bench/dry-run.js --sizes 1e6,1e7,3e7 --runs 3 --record
 */
const { appendFile, mkdtemp, rm } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { writeRecipientListFile } = require('@herald/audience');
const { startEmbeddedCluster } = require('@herald/embedded');
const { authHeaders, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');
const { upload } = require('./embedded-fanout');
const { machine, commit, benchAudience } = require('./lib');

function parseArgs(argv) {
  const args = { sizes: [1e6, 1e7], runs: 3, record: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else if (argv[i] === '--record') args.record = true;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (args.sizes.some((n) => !(n >= 1)) || !(Number.isInteger(args.runs) && args.runs >= 1))
    throw new Error('bad --sizes or --runs');
  return args;
}

async function dryRun(url, listId) {
  const t0 = process.hrtime.bigint();
  const response = await fetch(url + '/api/v1/tasks?dryRun=true', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders() },
    body: JSON.stringify({ accountId: 'bench', listId, content: { body: 'bench' } }),
  });
  const answer = await response.json();
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  if (response.status !== 200) throw new Error(`dry run answered ${response.status}: ${JSON.stringify(answer)}`);
  return { seconds, answer };
}

async function measure(n, runs) {
  const audience = benchAudience(n, 0.3);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-bench-dry-'));
  try {
    const listFile = path.join(dir, 'audience.hrl');
    const blacklistFile = path.join(dir, 'blacklist.hrl');
    await writeRecipientListFile(listFile, audience.list, 0);
    await writeRecipientListFile(blacklistFile, audience.blacklist, 0);
    const cluster = await startEmbeddedCluster({
      dataDir: path.join(dir, 'data'),
      http: { port: 0 },
      auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
      tasks: TEST_TASK_OPTIONS,
    });
    try {
      await upload(cluster.url + '/api/v1/blacklists/global', blacklistFile);
      const list = await upload(cluster.url + '/api/v1/lists?accountId=bench', listFile);
      await dryRun(cluster.url, list.id); // warm-up: the list's pages, the chain's code
      const times = [];
      let answer;
      for (let i = 0; i < runs; i++) ({ seconds: times[i], answer } = await dryRun(cluster.url, list.id));
      const { tasks } = await cluster.store.listTasks({ limit: 1 });
      if (tasks.length !== 0) throw new Error('a dry run created a task');
      times.sort((a, b) => a - b);
      const removed = Object.values(answer.recipients.removed ?? {}).reduce((a, b) => a + b, 0);
      return {
        n,
        best: times[0],
        median: times[Math.floor(times.length / 2)],
        kept: answer.recipients.kept,
        removed,
        sampled: answer.recipients.sampled ?? null,
        peakRssMiB: process.resourceUsage().maxRSS / 1024,
      };
    } finally {
      await cluster.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const rows = [];
  for (const n of args.sizes) {
    process.stderr.write(`dry run over ${n.toLocaleString('en-US')} recipients ...\n`);
    rows.push(await measure(n, args.runs));
  }
  const fmt = (n, d = 0) =>
    n === null || n === undefined
      ? '-'
      : n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const table = [
    `### Dry run, embedded profile — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. 30% online, the bench audience's duplicates and blacklist. Command: \`node bench/dry-run.js --sizes ${args.sizes.join(',')} --runs ${args.runs}\`.`,
    '',
    '| recipients | best (s) | median (s) | kept | removed | sampled | peak RSS (MiB) |',
    '|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (r) =>
        `| ${fmt(r.n)} | ${fmt(r.best, 3)} | ${fmt(r.median, 3)} | ${fmt(r.kept)} | ${fmt(r.removed)} | ${fmt(r.sampled)} | ${fmt(r.peakRssMiB)} |`,
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
