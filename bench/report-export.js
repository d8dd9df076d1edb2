#!/usr/bin/env node
/**
 * Delivery report export rate (docs/recipient-truth.md, "The delivery
 * report"): broadcasts N recipients on a fresh embedded cluster (the
 * benchmarks' synthetic audience: 2% duplicates, 1% blacklisted, 30%
 * online), logs a share of the offline ones in (login outcomes) and then
 * streams GET /api/v1/tasks/:id/report over HTTP to /dev/null (curl, its own
 * process), CSV and NDJSON, best of --runs. Prints rows/s, bytes, and this process's
 * resident set before the stream and at its peak during it (every tier runs in
 * this process, so the growth is what the stream costs). Checks that the
 * report has one row per distinct recipient and that its rows counted by fate
 * equal the task's counts (GET /api/v1/tasks/:id `report`).
 *
 *   node bench/report-export.js                         # 10^6 recipients, best of 3
 *   node bench/report-export.js --recipients 1e7 --runs 1
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof bench/report-export.js --runs 1   # where the time goes
 *
 * Uses the built packages (`npx tsc -b` first).
 */
const { execFile, spawn } = require('node:child_process');
const { mkdtemp, rm } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { writeRecipientListFile } = require('@herald/audience');
const { startEmbeddedCluster } = require('@herald/embedded');
const { authHeaders, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');
const { upload } = require('./embedded-fanout');
const { benchAudience, commit, fmt, loadAverage, machine, rssSampler } = require('./lib');

function parseArgs(argv) {
  const args = { recipients: 1e6, runs: 3, online: 0.3, logins: 0.05 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--recipients') args.recipients = Number(argv[++i]);
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else if (argv[i] === '--online') args.online = Number(argv[++i]);
    else if (argv[i] === '--logins') args.logins = Number(argv[++i]);
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!(args.recipients >= 1) || !(args.runs >= 1) || !(args.logins >= 0 && args.logins <= 1))
    throw new Error('bad --recipients, --runs or --logins');
  return args;
}

/**
 * The checking pass: the report fetched by curl and its rows counted by awk
 * (CSV: by fate, the third cell; NDJSON: lines), both processes of their own,
 * so checking 10^7 rows does not compete with the server for its event loop.
 */
function countReport(url, accept) {
  return new Promise((resolve, reject) => {
    const headers = Object.entries({ ...authHeaders(), accept }).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const curl = spawn('curl', ['-sS', '--fail', ...headers, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    const program =
      accept === 'text/csv'
        ? 'NR > 1 { fates[$3]++ } END { for (f in fates) print f, fates[f]; print "bytes", bytes } { bytes += length($0) + 1 }'
        : '{ bytes += length($0) + 1 } END { print "lines", NR; print "bytes", bytes }';
    const awk = spawn('awk', ['-F,', program], { stdio: [curl.stdout, 'pipe', 'inherit'] });
    let out = '';
    awk.stdout.on('data', (chunk) => (out += chunk));
    awk.on('error', reject);
    curl.on('error', reject);
    awk.on('close', (code) => {
      if (code !== 0) return reject(new Error(`awk exited ${code}`));
      const counts = Object.fromEntries(
        out
          .trim()
          .split('\n')
          .map((line) => [line.split(' ')[0], Number(line.split(' ')[1])]),
      );
      const { bytes, lines, ...fates } = counts;
      resolve({ bytes, lines, fates });
    });
  });
}

/** Streams one report to /dev/null with curl, a process of its own: the timed runs' sink. */
function curlReport(url, accept) {
  return new Promise((resolve, reject) => {
    const headers = Object.entries({ ...authHeaders(), accept }).flatMap(([k, v]) => ['-H', `${k}: ${v}`]);
    const args = ['-sS', '--fail', '-o', '/dev/null', '-w', '%{size_download} %{time_total}', ...headers, url];
    execFile('curl', args, (error, stdout) => {
      if (error) return reject(error);
      const [bytes, seconds] = stdout.trim().split(' ').map(Number);
      resolve({ bytes, seconds });
    });
  });
}

/** Broadcasts the audience on `cluster` and logs `logins` of its offline recipients in; the completed task. */
async function broadcast(cluster, dir, audience, logins) {
  const listFile = path.join(dir, 'audience.hrl');
  const blacklistFile = path.join(dir, 'blacklist.hrl');
  await writeRecipientListFile(listFile, audience.list, 0);
  await writeRecipientListFile(blacklistFile, audience.blacklist, 0);
  for (const uin of audience.online) cluster.online.setOnline(uin, true);
  await upload(cluster.url + '/api/v1/blacklists/global', blacklistFile);
  const list = await upload(cluster.url + '/api/v1/lists?accountId=bench', listFile);
  const response = await fetch(cluster.url + '/api/v1/tasks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...authHeaders() },
    body: JSON.stringify({ accountId: 'bench', listId: list.id, content: { body: 'bench' }, confirm: list.count }),
  });
  const created = await response.json();
  let task;
  for (;;) {
    task = await cluster.store.getTask(created.id);
    if (['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state)) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  if (task.state !== 'COMPLETED') throw new Error(`task ended ${task.state}: ${JSON.stringify(task.error)}`);
  process.stderr.write(`  task ${task.id} completed; logging offline recipients in ...\n`);
  // Every 1/logins-th distinct recipient that is not online and not blacklisted logs in.
  const online = new Set(audience.online);
  const blacklisted = new Set(audience.blacklist);
  const step = logins > 0 ? Math.round(1 / logins) : Infinity;
  const loggingIn = [];
  for (let i = 0; i < audience.distinct.length; i += step) {
    const uin = audience.distinct[i];
    if (!online.has(uin) && !blacklisted.has(uin)) loggingIn.push(uin);
  }
  // One login at a time (as users do): keep --logins small at 10^7.
  await cluster.login(loggingIn);
  process.stderr.write(`  ${fmt(loggingIn.length)} logged in\n`);
  return { task, loggedIn: loggingIn.length };
}

/** The report's rows counted by fate against the task's own counts (what the task page shows). */
function checkCounts(task, fates, distinct) {
  const r = task.report;
  const removedDistinct = Object.entries(r.removed)
    .filter(([link]) => link !== 'duplicate')
    .reduce((sum, [, n]) => sum + n, 0);
  const want = { delivered_online: r.delivered, queued_offline: r.offline, removed: removedDistinct };
  const got = { delivered_online: fates.delivered_online ?? 0, queued_offline: fates.queued_offline ?? 0 };
  got.removed = fates.removed ?? 0;
  const rows = Object.values(fates).reduce((a, b) => a + b, 0);
  if (rows !== distinct) throw new Error(`the report has ${rows} rows, the audience ${distinct} distinct recipients`);
  for (const key of Object.keys(want))
    if (want[key] !== got[key]) throw new Error(`report ${key}: ${got[key]} rows, the task counts ${want[key]}`);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const audience = benchAudience(args.recipients, args.online);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-report-bench-'));
  const cluster = await startEmbeddedCluster({
    dataDir: path.join(dir, 'data'),
    http: { port: 0 },
    auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
    tasks: TEST_TASK_OPTIONS,
    // One filter thread (0 would be one per core): its removed sets are complete, so every removed
    // recipient has a row; a list of 2^20 or more filtered in parallel records only the links after the merge.
    dispatcher: { filterWorkers: 1 },
  });
  try {
    process.stderr.write(`broadcasting ${fmt(args.recipients)} recipients ...\n`);
    const { task, loggedIn } = await broadcast(cluster, dir, audience, args.logins);
    const url = `${cluster.url}/api/v1/tasks/${task.id}/report`;
    // Untimed passes first: the rows counted by fate against the task's counts, and each form's size.
    const checked = await countReport(url, 'text/csv');
    checkCounts(task, checked.fates, audience.distinct.length);
    const ndjsonChecked = await countReport(url, 'application/x-ndjson');
    if (ndjsonChecked.lines !== audience.distinct.length) throw new Error(`ndjson: ${ndjsonChecked.lines} rows`);
    const expectedBytes = { csv: checked.bytes, ndjson: ndjsonChecked.bytes };
    const results = {};
    for (const [format, accept] of [
      ['csv', 'text/csv'],
      ['ndjson', 'application/x-ndjson'],
    ]) {
      const runs = [];
      for (let run = 0; run < args.runs; run++) {
        global.gc?.();
        const rssBefore = process.memoryUsage.rss() / 2 ** 20;
        const sampler = rssSampler(20);
        const cpuBefore = process.cpuUsage();
        const result = await curlReport(url, accept);
        const cpu = process.cpuUsage(cpuBefore);
        const rssPeak = sampler.stop();
        if (result.bytes !== expectedBytes[format])
          throw new Error(`${format}: ${result.bytes} bytes, the checked pass had ${expectedBytes[format]}`);
        const rows = audience.distinct.length;
        runs.push({
          rows,
          bytes: result.bytes,
          seconds: result.seconds,
          cpuSeconds: (cpu.user + cpu.system) / 1e6,
          rssBefore,
          rssPeak,
        });
        process.stderr.write(`  ${format} run ${run + 1}: ${fmt(rows / result.seconds)} rows/s\n`);
      }
      const best = runs.reduce((a, b) => (b.seconds < a.seconds ? b : a));
      results[format] = {
        rows: best.rows,
        bytes: best.bytes,
        bestSeconds: Number(best.seconds.toFixed(3)),
        rowsPerSecond: Math.round(best.rows / best.seconds),
        allRowsPerSecond: runs.map((r) => Math.round(r.rows / r.seconds)),
        // The server's CPU time (this process; curl is another): less swayed by the machine's load than the wall clock.
        bestRowsPerServerCpuSecond: Math.max(...runs.map((r) => Math.round(r.rows / r.cpuSeconds))),
        rssBeforeMiB: Math.round(Math.max(...runs.map((r) => r.rssBefore))),
        rssPeakMiB: Math.round(Math.max(...runs.map((r) => r.rssPeak))),
      };
    }
    console.log(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          commit: commit(),
          machine: machine(),
          loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))),
          load1AtEnd: Number(loadAverage().toFixed(2)),
          recipients: args.recipients,
          distinct: audience.distinct.length,
          loggedIn,
          counts: task.report,
          fates: checked.fates,
          ...results,
        },
        null,
        2,
      ),
    );
  } finally {
    await cluster.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
