/**
 * One broadcast end to end on the embedded profile, through the real HTTP API
 * and tiers: shared by bench/fanout.js and bench/baseline.js (which runs the
 * same broadcast on a BullMQ + Redis peer baseline and compares).
 *
 * Timing: "upload" is the list file streamed to the API; "end to end" is task
 * creation to COMPLETED (pre-processing included, upload excluded).
 */
const { mkdtemp, rm } = require('node:fs/promises');
const { request } = require('node:http');
const { createReadStream, statSync } = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { writeRecipientListFile } = require('@herald/audience');
const { startEmbeddedCluster } = require('@herald/embedded');
const { authHeaders, TEST_AUTH_OPTIONS, TEST_TASK_OPTIONS } = require('@herald/testing');

/** Streams a list file to the API (a 10^8 list is 800 MB: never read it whole). */
function upload(url, file) {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: url.includes('/lists') ? 'POST' : 'PUT',
        headers: {
          'content-type': 'application/octet-stream',
          'content-length': statSync(file).size,
          ...authHeaders(),
        },
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
          if (res.statusCode >= 300) reject(new Error(`${url}: ${JSON.stringify(body)}`));
          else resolve(body);
        });
      },
    );
    req.on('error', reject);
    createReadStream(file, { highWaterMark: 1 << 20 })
      .on('error', reject)
      .pipe(req);
  });
}

/** The content of a `template` run: one attribute lookup per batch and a render per online recipient (docs/delivery.md). */
const TEMPLATE_CONTENT = {
  title: 'For {{uin}}',
  body: 'Hello {{region|default:"there"}}, from bench ({{ageBand|default:"-"}})',
  template: true,
};
const REGIONS = ['gd', 'sh', 'bj', 'zj', 'js'];

/** Gives every other online user attributes (the rest take the defaults), before the clock starts. */
async function seedAttributes(cluster, online) {
  const step = 10_000; // MAX_USERS_PER_PUT
  const users = [];
  for (let i = 0; i < online.length; i += 2)
    users.push({ uin: online[i], region: REGIONS[i % REGIONS.length], ageBand: '25-34' });
  for (let i = 0; i < users.length; i += step) await cluster.attributes.putUsers(users.slice(i, i + step));
}

/**
 * Runs `audience` (from bench/lib.js benchAudience) as one task on a fresh embedded cluster
 * in a temp dir, removed afterwards. Throws unless the task completes and its
 * report reconciles (delivered + offline + removed = total). With `template`,
 * the task's content is a template and half its online users have attributes.
 * `onStage(stage, cluster)`, when given, is awaited at each stage's start
 * ('pre-processing' at the task's creation, 'sending' when it is seen SENDING)
 * and with 'end' at COMPLETED (bench/fanout.js --breakdown).
 * With `stages` (bench/lib.js stagePeaks), each stage's peak RSS is taken:
 * setup, upload, then each task state the polling sees, then stop.
 * `filterWorkers`: the dispatcher's `dispatcher.filterWorkers` (default: its own default, the machine's cores).
 * `batchSize`: `dispatcher.batchSize` (default: the configuration's, docs/capacity.md "Batch size").
 * With `records: false` (bench/fanout.js --records-cost) the executors keep
 * no delivery records (the embedded cluster's bench-only
 * benchWithoutDeliveryRecords), to measure what keeping them costs.
 */
async function runEmbeddedFanout(
  audience,
  { template = false, onStage, stages, filterWorkers, batchSize, records = true } = {},
) {
  const recipients = audience.list.length;
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-bench-'));
  try {
    stages?.enter('setup');
    const listFile = path.join(dir, 'audience.hrl');
    const blacklistFile = path.join(dir, 'blacklist.hrl');
    await writeRecipientListFile(listFile, audience.list, 0);
    await writeRecipientListFile(blacklistFile, audience.blacklist, 0);
    const cluster = await startEmbeddedCluster(
      {
        dataDir: path.join(dir, 'data'),
        http: { port: 0 },
        auth: { ...TEST_AUTH_OPTIONS, rateLimit: { perSecond: 0 } },
        tasks: TEST_TASK_OPTIONS,
        dispatcher: {
          ...(filterWorkers === undefined ? {} : { filterWorkers }),
          ...(batchSize === undefined ? {} : { batchSize }),
        },
      },
      records ? {} : { benchWithoutDeliveryRecords: true },
    );
    try {
      for (const uin of audience.online) cluster.online.setOnline(uin, true);
      await upload(cluster.url + '/api/v1/blacklists/global', blacklistFile);
      if (template) await seedAttributes(cluster, audience.online);
      stages?.enter('upload');
      const t0 = process.hrtime.bigint();
      const list = await upload(cluster.url + '/api/v1/lists?accountId=bench', listFile);
      await onStage?.('pre-processing (create -> SENDING)', cluster);
      const t1 = process.hrtime.bigint();
      const response = await fetch(cluster.url + '/api/v1/tasks', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...authHeaders() },
        // confirm: a list over accounts.defaultLimits.confirmAbove needs its count repeated (docs/account-quotas.md).
        body: JSON.stringify({
          accountId: 'bench',
          listId: list.id,
          content: template ? TEMPLATE_CONTENT : { body: 'bench' },
          confirm: list.count,
        }),
      });
      const created = await response.json();
      let task;
      let sendingAt;
      let state;
      let sendingCpu;
      for (;;) {
        task = await cluster.store.getTask(created.id);
        if (task.state !== state) stages?.enter((state = task.state));
        if (sendingAt === undefined && task.state === 'SENDING') {
          sendingAt = process.hrtime.bigint();
          sendingCpu = process.cpuUsage();
          await onStage?.('sending (SENDING -> COMPLETED)', cluster);
        }
        if (['COMPLETED', 'FAILED', 'CANCELLED', 'EXPIRED'].includes(task.state)) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      const t2 = process.hrtime.bigint();
      await onStage?.('end', cluster);
      // CPU time of this process (every tier and its threads) while sending: on a shared machine less noisy than wall time.
      const sendCpu = sendingCpu === undefined ? undefined : process.cpuUsage(sendingCpu);
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
        sendCpuS: sendCpu ? (sendCpu.user + sendCpu.system) / 1e6 : NaN,
        rate: recipients / s(t1, t2),
        delivered: r.delivered,
        offline: r.offline,
        removed,
        peakRssMiB: process.resourceUsage().maxRSS / 1024,
      };
    } finally {
      stages?.enter('stop');
      await cluster.stop();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

module.exports = { runEmbeddedFanout, upload };
