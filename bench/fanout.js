#!/usr/bin/env node
/**
 * Fan-out benchmark: one broadcast end to end on the embedded profile, through
 * the real HTTP API and tiers (list -> filters -> online check -> delivery /
 * offline list), for each size asked. Prints a table and, with --record,
 * appends it to bench/RESULTS.md with the date, machine and commit.
 *
 *   npm run bench                       # 10^6 and 10^7 recipients, 30% online
 *   npm run bench -- --sizes 1e6 --online 0.3 --record
 *
 * Rates: "end to end" is task creation to COMPLETED (pre-processing included,
 * upload excluded: it is reported on its own). Peak RSS is this process's
 * maximum resident set (every tier runs in it).
 */
const { mkdtemp, rm, appendFile } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { syntheticAudience, writeRecipientListFile } = require('@herald/audience');
const { startEmbeddedCluster } = require('@herald/embedded');
const { machine, commit } = require('./lib');

function parseArgs(argv) {
  const args = { sizes: [1e6, 1e7], online: 0.3, record: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--sizes') args.sizes = argv[++i].split(',').map(Number);
    else if (argv[i] === '--online') args.online = Number(argv[++i]);
    else if (argv[i] === '--record') args.record = true;
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (args.sizes.some((n) => !(n >= 1)) || !(args.online >= 0 && args.online <= 1)) throw new Error('bad --sizes or --online');
  return args;
}

/** Streams a list file to the API (a 10^8 list is 800 MB: never read it whole). */
function upload(url, file) {
  const { request } = require('node:http');
  const { createReadStream, statSync } = require('node:fs');
  return new Promise((resolve, reject) => {
    const req = request(url, { method: url.includes('/lists') ? 'POST' : 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-length': statSync(file).size } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        if (res.statusCode >= 300) reject(new Error(`${url}: ${JSON.stringify(body)}`));
        else resolve(body);
      });
    });
    req.on('error', reject);
    createReadStream(file, { highWaterMark: 1 << 20 }).on('error', reject).pipe(req);
  });
}

async function runOne(recipients, online) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-bench-'));
  try {
    const audience = syntheticAudience({ recipients, onlineFraction: online, uinLimit: 2 ** 32, seed: 42 });
    const listFile = path.join(dir, 'audience.hrl');
    const blacklistFile = path.join(dir, 'blacklist.hrl');
    await writeRecipientListFile(listFile, audience.list, 0);
    await writeRecipientListFile(blacklistFile, audience.blacklist, 0);
    const cluster = await startEmbeddedCluster({ dataDir: path.join(dir, 'data'), http: { port: 0 } });
    try {
      for (const uin of audience.online) cluster.online.setOnline(uin, true);
      await upload(cluster.url + '/api/v1/blacklists/global', blacklistFile);
      const t0 = process.hrtime.bigint();
      const list = await upload(cluster.url + '/api/v1/lists?accountId=bench', listFile);
      const t1 = process.hrtime.bigint();
      const response = await fetch(cluster.url + '/api/v1/tasks', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ accountId: 'bench', listId: list.id, content: { body: 'bench' } }),
      });
      const created = await response.json();
      let task;
      let sendingAt;
      for (;;) {
        task = await cluster.store.getTask(created.id);
        if (sendingAt === undefined && task.state === 'SENDING') sendingAt = process.hrtime.bigint();
        if (['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state)) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const t2 = process.hrtime.bigint();
      if (task.state !== 'COMPLETED') throw new Error(`task ended ${task.state}: ${JSON.stringify(task.error)}`);
      const r = task.report;
      const removed = Object.values(r.removed).reduce((a, b) => a + b, 0);
      if (r.delivered + r.offline + removed !== r.total) throw new Error('report does not reconcile');
      const s = (a, b) => Number(b - a) / 1e9;
      return {
        recipients,
        uploadS: s(t0, t1),
        endToEndS: s(t1, t2),
        preprocessS: sendingAt ? s(t1, sendingAt) : NaN,
        sendS: sendingAt ? s(sendingAt, t2) : NaN,
        rate: recipients / s(t1, t2),
        delivered: r.delivered,
        offline: r.offline,
        removed,
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
    process.stderr.write(`fan-out ${n.toLocaleString('en-US')} recipients ...\n`);
    const row = await runOne(n, args.online);
    rows.push(row);
    process.stderr.write(`  ${Math.round(row.rate).toLocaleString('en-US')} recipients/s end to end\n`);
  }
  const fmt = (n, d = 0) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
  const table = [
    `### Fan-out, embedded profile — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}`,
    '',
    `Machine: ${machine()}. Online share ${args.online}. Command: \`npm run bench -- --sizes ${args.sizes.join(',')} --online ${args.online}\`.`,
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
