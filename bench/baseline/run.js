/**
 * The peer baseline: the same broadcast as Herald's fan-out benchmark, built
 * the way a Node user would build it today on BullMQ + Redis.
 *
 * Before the clock starts (Herald gets the same: its blacklist uploaded, its
 * online bitmap set): the blacklist is SADDed to a Redis set, the online users
 * SETBIT into a Redis bitmap (pipelined), and the workers are started and
 * ready (long-running services). Timed: the list is enqueued as batch jobs
 * (`addBulk`, `batchSize` uins a job), and workers (workers.js: `workers`
 * BullMQ Workers in this process, or one in each of `processes` child
 * processes, `concurrency` jobs each) run processBatch on every job, until
 * the last job has completed. Delivered recipients go to the same
 * FileDeliverySink as Herald's; offline ones to per-user Redis lists.
 *
 * Afterwards every key of the run is deleted (keys.js), and the counts are
 * checked three ways: they reconcile (delivered + offline + filtered = list),
 * the sink's file holds `delivered` records, and Redis held `offline` offline
 * lists and `delivered + offline` cap counters.
 */
const { mkdtemp, rm, stat } = require('node:fs/promises');
const os = require('node:os');
const path = require('node:path');
const { Queue } = require('bullmq');
const { Redis } = require('ioredis');
const { baselineKeys } = require('./keys');
const { startWorkers } = require('./workers');
const { deleteRunKeys, countRunKeys } = require('./cleanup');

const TASK_ID = 1;
const SETUP_CHUNK = 10_000;
const ENQUEUE_CHUNK = 500;

// Tuned on this 2-core machine at 10^5 (bench/RESULTS.md, the peer-baseline section): the
// client side (ioredis building and parsing ~5 commands a recipient, a third of it GC) is the
// bottleneck, not Redis, so one worker process per core; concurrency above 2 only added GC.
const DEFAULTS = {
  redisUrl: 'redis://127.0.0.1:6379',
  batchSize: 1000,
  workers: 1,
  processes: 2,
  concurrency: 2,
  dailyCap: 3,
};

function connectionOptions(redisUrl) {
  const url = new URL(redisUrl);
  // BullMQ workers block on their connection: ioredis must not give up on it.
  return { host: url.hostname, port: Number(url.port || 6379), maxRetriesPerRequest: null };
}

/** The server's version, for the results (also checks that Redis answers before anything else runs). */
async function redisVersion(redisUrl) {
  const redis = new Redis({ ...connectionOptions(redisUrl), maxRetriesPerRequest: 1 });
  try {
    return /redis_version:(\S+)/.exec(await redis.info('server'))[1];
  } finally {
    redis.disconnect();
  }
}

async function usedMemory(redis) {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)[1]);
}

async function loadAudienceState(redis, keys, audience) {
  for (let i = 0; i < audience.blacklist.length; i += SETUP_CHUNK) {
    await redis.sadd(keys.blacklist, Array.from(audience.blacklist.subarray(i, i + SETUP_CHUNK)));
  }
  for (let i = 0; i < audience.online.length; i += SETUP_CHUNK) {
    const pipeline = redis.pipeline();
    for (const uin of audience.online.subarray(i, i + SETUP_CHUNK)) pipeline.setbit(keys.online, uin, 1);
    await pipeline.exec();
  }
}

/** Resolves with the summed counts once `expected` jobs have completed; rejects on the first failure. */
function collectResults(workers, expected) {
  const totals = { delivered: 0, offline: 0, duplicate: 0, blacklisted: 0, capped: 0 };
  let completed = 0;
  return new Promise((resolve, reject) => {
    workers.onCompleted((counts) => {
      for (const k of Object.keys(totals)) totals[k] += counts[k];
      if (++completed === expected) resolve(totals);
    });
    workers.onFailed(reject);
  });
}

/**
 * Runs `audience` (bench/lib.js benchAudience) through the
 * baseline once; see the module doc. Throws if the counts do not check out.
 */
async function runBullmqBaseline(audience, options = {}) {
  const o = { ...DEFAULTS, ...options };
  const recipients = audience.list.length;
  const runId = `${process.pid}-${Date.now().toString(36)}`;
  const keys = baselineKeys(runId);
  const connection = connectionOptions(o.redisUrl);
  const redis = new Redis(connection);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-baseline-'));
  const queue = new Queue(keys.queueName, { connection, prefix: keys.bullPrefix });
  let workers;
  try {
    const memoryBefore = await usedMemory(redis);
    await loadAudienceState(redis, keys, audience);
    const day = new Date().toISOString().slice(0, 10);
    workers = startWorkers({
      runId,
      connection,
      sinkDir: dir,
      taskId: TASK_ID,
      dailyCap: o.dailyCap,
      day,
      concurrency: o.concurrency,
      workers: o.workers,
      processes: o.processes,
    });
    await workers.ready;
    const jobs = Math.ceil(recipients / o.batchSize);
    const done = collectResults(workers, jobs);
    done.catch(() => {}); // awaited below; a failure during enqueueing must not go unhandled meanwhile

    const t0 = process.hrtime.bigint();
    for (let j = 0; j < jobs; j += ENQUEUE_CHUNK) {
      const chunk = [];
      for (let k = j; k < Math.min(jobs, j + ENQUEUE_CHUNK); k++) {
        const uins = Array.from(audience.list.subarray(k * o.batchSize, (k + 1) * o.batchSize));
        chunk.push({ name: 'batch', data: { uins }, opts: { removeOnComplete: true } });
      }
      await queue.addBulk(chunk);
    }
    const t1 = process.hrtime.bigint();
    const counts = await done;
    const t2 = process.hrtime.bigint();
    const memoryAfter = await usedMemory(redis);

    const filtered = counts.duplicate + counts.blacklisted + counts.capped;
    if (counts.delivered + counts.offline + filtered !== recipients)
      throw new Error(`baseline counts do not reconcile: ${JSON.stringify(counts)} for ${recipients}`);
    const childrenPeakRssMiB = await workers.close();
    const sinkBytes = counts.delivered > 0 ? (await stat(path.join(dir, `task-${TASK_ID}.deliveries`))).size : 0;
    if (sinkBytes !== counts.delivered * 8)
      throw new Error(`sink holds ${sinkBytes / 8} records, baseline counted ${counts.delivered} delivered`);

    // The run's Redis state, counted while it is deleted, is the third check.
    await queue.close();
    const found = await deleteRunKeys(redis, keys);
    if (found.offlineLists !== counts.offline)
      throw new Error(`Redis held ${found.offlineLists} offline lists, baseline counted ${counts.offline}`);
    // Every recipient past dedupe and blacklist had its counter incremented, capped ones included.
    const capChecked = counts.delivered + counts.offline + counts.capped;
    if (found.capCounters !== capChecked)
      throw new Error(
        `Redis held ${found.capCounters} cap counters, baseline counted ${capChecked} recipients past the filters`,
      );

    const s = (a, b) => Number(b - a) / 1e9;
    return {
      recipients,
      jobs,
      enqueueS: s(t0, t1),
      totalS: s(t0, t2),
      rate: recipients / s(t0, t2),
      ...counts,
      filtered,
      redisMiB: (memoryAfter - memoryBefore) / 2 ** 20,
      childrenPeakRssMiB,
    };
  } finally {
    // Also on failure: never leave a run's keys in a Redis that others use.
    await workers?.close();
    await queue.close();
    await deleteRunKeys(redis, keys);
    const left = await countRunKeys(redis, keys);
    await redis.quit();
    await rm(dir, { recursive: true, force: true });
    if (left !== 0) throw new Error(`${left} keys of ${keys.pattern} left in Redis after cleanup`);
  }
}

module.exports = { runBullmqBaseline, redisVersion, BASELINE_DEFAULTS: DEFAULTS };
