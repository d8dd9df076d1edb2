/** Small helpers shared by the benchmark scripts. */
const { execSync } = require('node:child_process');
const os = require('node:os');

function percentiles(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[sorted.length - 1] };
}

function machine() {
  const cpus = os.cpus();
  return `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

function commit() {
  try {
    return execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return 'unknown';
  }
}

/** The value after `name` on the command line, or the fallback. */
function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

/**
 * Samples this process's resident set every `everyMs` until stop(), which
 * returns the peak in MiB. Unlike maxRSS (the whole process's life), this
 * isolates one phase of a benchmark that runs several in one process; a
 * peak shorter than the interval, or while the event loop is blocked, can be
 * missed.
 */
function rssSampler(everyMs = 20) {
  let peak = process.memoryUsage.rss();
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage.rss()) / 2 ** 20;
    },
  };
}

/**
 * Peak resident set of this process per stage of a run, in MiB: `enter(name)`
 * closes the stage before it with the kernel's high-water mark (VmHWM) and
 * resets that mark (`5` to /proc/self/clear_refs), so a stage's peak counts
 * every thread and no spike between samples is missed, even while the event
 * loop is blocked. `peaks()` closes the last stage. Where the mark cannot be
 * reset (no /proc, not permitted) each stage says `NaN`.
 */
function stagePeaks() {
  const fs = require('node:fs');
  const hwm = () => {
    try {
      const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync('/proc/self/status', 'utf8'));
      return match ? Number(match[1]) / 1024 : NaN;
    } catch {
      return NaN;
    }
  };
  const reset = () => {
    try {
      fs.writeFileSync('/proc/self/clear_refs', '5');
      return true;
    } catch {
      return false;
    }
  };
  const stages = [];
  let current;
  const close = () => {
    if (current !== undefined)
      stages.push({ stage: current.name, peakMiB: current.resettable ? hwm() : NaN, ms: Date.now() - current.at });
  };
  return {
    enter(name) {
      close();
      current = { name, at: Date.now(), resettable: reset() };
    },
    peaks() {
      close();
      current = undefined;
      return stages;
    },
  };
}

/**
 * The benchmarks' synthetic audience (2% duplicates, 1% blacklisted): the same
 * seed everywhere, so every run, and both sides of a comparison, see the same list.
 */
function benchAudience(recipients, onlineFraction) {
  const { syntheticAudience } = require('@herald/audience');
  return syntheticAudience({ recipients, onlineFraction, uinLimit: 2 ** 32, seed: 42 });
}

/**
 * Peak resident set of another process of this host, in MiB: VmHWM from
 * /proc/<pid>/status (the kernel's high-water mark over the process's life).
 * Read it before the process exits; undefined if it is gone or /proc lacks it.
 */
function peakRssOfPid(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Follows other processes' resident sets while a run goes on: every
 * `intervalMs`, each one's RssAnon, RssFile and RssShmem from /proc/<pid>/status,
 * keeping the largest of each, so a peak can be split into what the process
 * itself allocated (anonymous) and what is mapped from files or shared memory
 * (a list's mmap, the shared online bitmap): VmHWM alone counts them together.
 * `peaks()` gives, per pid, the largest of each in MiB and VmHWM read then.
 */
function residentSampler(pids, intervalMs = 500) {
  const fields = ['RssAnon', 'RssFile', 'RssShmem'];
  const peaks = new Map(pids.map((pid) => [pid, { RssAnon: 0, RssFile: 0, RssShmem: 0 }]));
  const sample = () => {
    for (const [pid, peak] of peaks) {
      let status;
      try {
        status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8');
      } catch {
        continue; // gone: keep what was seen
      }
      for (const field of fields) {
        const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status);
        if (match) peak[field] = Math.max(peak[field], Number(match[1]) / 1024);
      }
    }
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    peaks() {
      sample();
      return new Map([...peaks].map(([pid, peak]) => [pid, { ...peak, VmHWM: peakRssOfPid(pid) }]));
    },
    stop: () => clearInterval(timer),
  };
}

/** A number with thousands separators and `digits` decimals, as the tables print them. */
function fmt(n, digits = 0) {
  return n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
}

/** 1-minute load average: the machine's 2 cores may be shared with other work. */
function loadAverage() {
  return os.loadavg()[0];
}

/**
 * The servers a production-profile benchmark needs outside jest (whose global
 * setup starts them for the tests): the machine's shared MariaDB (started if
 * it is down, never stopped here: other work uses it), a standalone ZooKeeper
 * and librdkafka's mock Kafka, both this run's own. Sets the HERALD_TEST_*
 * variables ProcessCluster reads and gives the run its own database, znode
 * root and topic prefix. `stop()` drops the database and stops ZooKeeper and
 * kcat; it is safe to call twice.
 */
async function startProductionServers(label) {
  const { randomBytes } = require('node:crypto');
  const { TestZooKeeper, TestKafka, ensureSharedMariaDb } = require('@herald/testing');
  const tag = randomBytes(4).toString('hex');
  const names = {
    database: `herald_${label}_${tag}`,
    zkRoot: `/herald-${label}-${tag}`,
    topicPrefix: `${label}${tag}.`,
    tag,
  };
  const zk = await TestZooKeeper.start();
  let kafka;
  try {
    kafka = await TestKafka.start();
    process.env.HERALD_TEST_MYSQL_URL = await ensureSharedMariaDb();
  } catch (error) {
    await kafka?.stop();
    await zk.destroy();
    throw error;
  }
  process.env.HERALD_TEST_ZK = zk.connectionString;
  process.env.HERALD_TEST_KAFKA_BROKERS = kafka.brokers.join(',');
  let stopped;
  return {
    names,
    stop: () =>
      (stopped ??= (async () => {
        try {
          const { createPool } = require('mysql2/promise');
          const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL });
          await pool.query(`DROP DATABASE IF EXISTS \`${names.database}\``).finally(() => pool.end());
        } finally {
          await kafka.stop();
          await zk.destroy();
        }
      })()),
  };
}

module.exports = {
  percentiles,
  machine,
  commit,
  arg,
  rssSampler,
  stagePeaks,
  loadAverage,
  benchAudience,
  startProductionServers,
  peakRssOfPid,
  residentSampler,
  fmt,
};
