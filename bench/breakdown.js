/**
 * `--breakdown` of bench/fanout.js and bench/production.js: where a
 * broadcast's seconds go, per stage (pre-processing, sending) and per process.
 *
 * Nothing is added to the hot path. The figures come from what a process
 * already exposes:
 *   - CPU of every thread: /proc/<pid>/stat (utime + stime) at each stage's ends;
 *   - bytes written and write syscalls: /proc/<pid>/io (write_bytes is what
 *     reached the block layer, so page-cache-only files on tmpfs count 0; wchar
 *     is every byte passed to write());
 *   - GC time and event-loop delay: perf_hooks in the embedded run (the bench is
 *     the process), and prom-client's default metrics on the production
 *     processes' management endpoints (nodejs_gc_duration_seconds,
 *     nodejs_eventloop_lag_*; the lag histogram restarts at each scrape);
 *   - queue depths: the gauges the tiers already register, sampled every
 *     second (max over the stage);
 *   - where the JS time goes: V8 CPU profiles (`--cpu-prof`, one file per
 *     thread, kept in a temp dir whose path is printed), cut at the stage
 *     boundaries (their sample times are CLOCK_MONOTONIC microseconds, the
 *     clock of process.hrtime) and summed by self time, per component (a
 *     package's file, a dependency, GC, native) and per function.
 * fsync counts are not taken: counting them needs ptrace (strace), which
 * would slow the run it measures.
 */
const fs = require('node:fs');
const path = require('node:path');
const { fmt } = require('./lib');

/** clock ticks per second of /proc/<pid>/stat's utime and stime (USER_HZ, 100 on Linux). */
const CLOCK_TICKS = 100;

/** A process's CPU seconds (all threads) and I/O counters from /proc, or undefined once it is gone. */
function procCounters(pid) {
  try {
    // Fields after the command (which may hold spaces) in ")": utime and stime are the 12th and 13th.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const io = Object.fromEntries(
      fs
        .readFileSync(`/proc/${pid}/io`, 'utf8')
        .trim()
        .split('\n')
        .map((line) => line.split(': '))
        .map(([k, v]) => [k, Number(v)]),
    );
    return {
      cpuS: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS,
      writeBytes: io.write_bytes,
      wchar: io.wchar,
      syscw: io.syscw,
      threads: threadCpu(pid),
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds per kind of thread of a process: its threads' /proc/<pid>/task/<tid>/stat summed by name,
 * numbers dropped ("GC Thread#0" and "GC Thread#1" are one kind), so a server without a profile (the JVM
 * of ZooKeeper, the broker) still shows whether its CPU went to requests, JIT compilers or GC. A thread
 * that ended within a stage takes its CPU with it: the kinds may sum to less than the process.
 */
function threadCpu(pid) {
  const byKind = {};
  let tids;
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return byKind;
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const kind = name.replace(/[#:-]?\d+$/, '').trim() || name;
      byKind[kind] = (byKind[kind] ?? 0) + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return byKind;
}

/** The sample values of a Prometheus text exposition, by "name{labels}". */
function parseExposition(text) {
  const values = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return values;
}

/** The gauges that say how much work waits between the parts (the only queue depths the tiers expose). */
const QUEUE_GAUGES = [
  'herald_dispatcher_preprocess_queue',
  'herald_dispatcher_active_streams',
  'herald_executor_prefetched_batches',
  'herald_executor_login_queue',
  'herald_scheduler_pending_jobs',
  'herald_scheduler_running_units',
];

/** Sums every series of each queue gauge. */
function queueDepths(values) {
  const depths = {};
  for (const [key, v] of values) {
    const name = key.split('{')[0];
    if (QUEUE_GAUGES.includes(name)) depths[name] = (depths[name] ?? 0) + v;
  }
  return depths;
}

/** GC seconds and count, and event-loop delay (s) since the previous scrape, from prom-client's default metrics. */
function runtimeFromMetrics(values) {
  let gcS = 0;
  let gcCount = 0;
  for (const [key, v] of values) {
    if (key.startsWith('nodejs_gc_duration_seconds_sum')) gcS += v;
    if (key.startsWith('nodejs_gc_duration_seconds_count')) gcCount += v;
  }
  return {
    gcS,
    gcCount,
    lagP99S: values.get('nodejs_eventloop_lag_p99_seconds'),
    lagMaxS: values.get('nodejs_eventloop_lag_max_seconds'),
  };
}

/**
 * Follows a set of processes through named stages: `mark(stage)` snapshots
 * each one's counters (`read(process)` returns {cpuS, writeBytes, wchar,
 * syscw, gcS, gcCount, lagP99S, lagMaxS, queues}, any may be missing) at the
 * boundary where `stage` begins; `sample()` between marks keeps the queue
 * gauges' and the lag's maxima. `stages()` gives one row per stage and process.
 */
class StageRecorder {
  constructor(processes, read) {
    this.processes = processes; // [{name, pid}]
    this.read = read;
    this.marks = [];
  }

  async mark(stage) {
    const at = process.hrtime.bigint();
    const readings = await Promise.all(this.processes.map((p) => this.read(p)));
    this.notePeaks(readings); // the reading at a boundary closes the stage before it
    this.marks.push({ stage, at, readings, peaks: new Map() });
  }

  async sample() {
    this.notePeaks(await Promise.all(this.processes.map((p) => this.read(p))));
  }

  notePeaks(readings) {
    const current = this.marks[this.marks.length - 1];
    if (current === undefined) return;
    readings.forEach((r, i) => {
      if (r === undefined) return;
      const peak = current.peaks.get(i) ?? { queues: {} };
      for (const [k, v] of Object.entries(r.queues ?? {})) peak.queues[k] = Math.max(peak.queues[k] ?? 0, v);
      if (r.lagP99S !== undefined) peak.lagP99S = Math.max(peak.lagP99S ?? 0, r.lagP99S);
      if (r.lagMaxS !== undefined) peak.lagMaxS = Math.max(peak.lagMaxS ?? 0, r.lagMaxS);
      current.peaks.set(i, peak);
    });
  }

  /** One entry per stage: its wall time and, per process, the differences between its two marks. */
  stages() {
    const out = [];
    for (let s = 0; s + 1 < this.marks.length; s++) {
      const [from, to] = [this.marks[s], this.marks[s + 1]];
      const wallS = Number(to.at - from.at) / 1e9;
      const rows = this.processes.map((p, i) => {
        const [a, b] = [from.readings[i], to.readings[i]];
        const diff = (k) => (a?.[k] === undefined || b?.[k] === undefined ? undefined : b[k] - a[k]);
        const peak = from.peaks.get(i) ?? { queues: {} };
        return {
          name: p.name,
          pid: p.pid,
          cpuS: diff('cpuS'),
          writeBytes: diff('writeBytes'),
          wchar: diff('wchar'),
          syscw: diff('syscw'),
          threads: threadsDiff(a?.threads, b?.threads),
          gcS: diff('gcS'),
          gcCount: diff('gcCount'),
          lagP99S: peak.lagP99S,
          lagMaxS: peak.lagMaxS,
          queues: { ...peak.queues },
        };
      });
      out.push({ stage: from.stage, fromUs: Number(from.at / 1000n), toUs: Number(to.at / 1000n), wallS, rows });
    }
    return out;
  }
}

/** "CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile" -> {pid, thread}. */
function profileOwner(file) {
  const m = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(path.basename(file));
  return m ? { pid: Number(m[1]), thread: Number(m[2]) } : undefined;
}

/** Where a function's code lives, coarse enough to name a part of Herald: a package file, a dependency, GC, native. */
function componentOf(frame) {
  const { url, functionName } = frame;
  if (url === '') return functionName.startsWith('(') ? functionName : '(native)';
  const herald = heraldFileOf(frame);
  if (herald !== undefined) return herald;
  const dep = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (dep) return dep[1];
  if (url.startsWith('node:')) return 'node internals';
  return path.basename(url);
}

/** A Herald package's file ("executor/run-batch"), or undefined for a dependency, node or native code. */
function heraldFileOf(frame) {
  const pkg = /packages\/([^/]+)\/dist\/(.+)\.js$/.exec(frame.url);
  return pkg ? `${pkg[1]}/${pkg[2]}` : undefined;
}

/**
 * Self time (µs) of one profile within each [fromUs, toUs) window: per
 * component, per function, and per Herald function on whose behalf it ran
 * (the innermost frame of a Herald package on the sample's stack: a LevelDB
 * get is charged to the Herald function that asked for it), which says which
 * part of a stage (online check, offline appends, checkpoints...) the time
 * belongs to.
 */
function profileSelfTimes(file, windows) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);
  const onBehalf = new Map(); // node id -> its innermost Herald frame's name, memoised
  const heraldFrameOf = (id) => {
    if (onBehalf.has(id)) return onBehalf.get(id);
    const frame = byId.get(id).callFrame;
    const file = heraldFileOf(frame);
    const parent = parentOf.get(id);
    const name =
      file !== undefined
        ? `${frame.functionName || '(anonymous)'} ${file}`
        : parent === undefined
          ? '(no Herald frame)'
          : heraldFrameOf(parent);
    onBehalf.set(id, name);
    return name;
  };
  const results = windows.map(() => ({ busyUs: 0, components: new Map(), functions: new Map(), herald: new Map() }));
  const add = (map, key, us) => map.set(key, (map.get(key) ?? 0) + us);
  let t = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    t += profile.timeDeltas[i];
    const duration = profile.timeDeltas[i + 1] ?? 0;
    const frame = byId.get(profile.samples[i]).callFrame;
    if (frame.functionName === '(idle)') continue;
    const w = windows.findIndex(({ fromUs, toUs }) => t >= fromUs && t < toUs);
    if (w < 0) continue;
    const r = results[w];
    r.busyUs += duration;
    const component = componentOf(frame);
    add(r.components, component, duration);
    add(r.functions, `${frame.functionName || '(anonymous)'} ${component}:${frame.lineNumber + 1}`, duration);
    add(r.herald, heraldFrameOf(profile.samples[i]), duration);
  }
  return results;
}

/**
 * Cuts every profile in `dir` at the stages' boundaries; returns, per stage,
 * per profiled thread of a known process: busy seconds and the top components
 * and functions by self time.
 */
function summariseProfiles(dir, stages, processes, top = 5) {
  const names = new Map(processes.map((p) => [p.pid, p.name]));
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  const perStage = stages.map(() => []);
  for (const file of files.sort()) {
    const owner = profileOwner(file);
    if (owner === undefined || !names.has(owner.pid)) continue;
    const thread = owner.thread === 0 ? 'main' : `worker ${owner.thread}`;
    profileSelfTimes(path.join(dir, file), stages).forEach((r, s) => {
      if (r.busyUs === 0) return;
      const ranked = (m) =>
        [...m]
          .sort((a, b) => b[1] - a[1])
          .slice(0, top)
          .map(([k, us]) => ({ name: k, s: us / 1e6 }));
      perStage[s].push({
        process: names.get(owner.pid),
        thread,
        busyS: r.busyUs / 1e6,
        components: ranked(r.components),
        functions: ranked(r.functions),
        herald: ranked(r.herald),
      });
    });
  }
  return perStage;
}

const mib = (bytes) => (bytes === undefined ? '-' : fmt(bytes / 2 ** 20, 1));
const ms = (s) => (s === undefined ? '-' : fmt(s * 1000, 1));
const sec = (s) => (s === undefined ? '-' : fmt(s, 2));

/** The markdown the benches print and append: per stage, a row per process, then where its JS time went. */
/** CPU seconds per kind of thread between two readings, busiest first; threads started meanwhile count from 0. */
function threadsDiff(before, after) {
  if (after === undefined) return [];
  return Object.entries(after)
    .map(([kind, s]) => ({ kind, s: s - (before?.[kind] ?? 0) }))
    .filter((t) => t.s > 0)
    .sort((x, y) => y.s - x.s);
}

/** The busiest kinds of thread of a stage's row, as "name s" pairs. */
function busiestThreads(threads, count = 4) {
  return threads.length === 0
    ? '-'
    : threads
        .slice(0, count)
        .map((t) => `${t.kind} ${sec(t.s)}`)
        .join('; ');
}

function breakdownMarkdown(stages, profiles, { profileDir, recipients, footer = true }) {
  const lines = [];
  stages.forEach((st, s) => {
    lines.push(
      `**${st.stage}**: ${sec(st.wallS)} s wall${recipients ? `, ${fmt(recipients / st.wallS)} recipients/s over the stage` : ''}.`,
      '',
      '| process | CPU s (all threads) | CPU / wall | busiest threads (CPU s) | GC ms (count) | event-loop delay p99 / max ms | written MiB (disk / write()) | write calls | queue gauges, max |',
      '|---|---:|---:|---|---:|---:|---:|---:|---|',
      ...st.rows.map((r) => {
        const queues = Object.entries(r.queues)
          .filter(([, v]) => v > 0)
          .map(([k, v]) => `${k.replace(/^herald_/, '')} ${fmt(v)}`)
          .join(', ');
        return `| ${r.name} | ${sec(r.cpuS)} | ${r.cpuS === undefined ? '-' : fmt((100 * r.cpuS) / st.wallS) + '%'} | ${busiestThreads(r.threads ?? [])} | ${ms(r.gcS)} (${r.gcCount === undefined ? '-' : fmt(r.gcCount)}) | ${ms(r.lagP99S)} / ${ms(r.lagMaxS)} | ${mib(r.writeBytes)} / ${mib(r.wchar)} | ${r.syscw === undefined ? '-' : fmt(r.syscw)} | ${queues || '-'} |`;
      }),
      '',
    );
    if (profiles[s].length > 0) {
      lines.push(
        '| thread | JS busy s | top components by self time (s) | top functions by self time (s) | top Herald functions, self time of what they called included (s) |',
        '|---|---:|---|---|---|',
        ...profiles[s].map(
          (p) =>
            `| ${p.process} ${p.thread} | ${sec(p.busyS)} | ${p.components.map((c) => `${c.name} ${sec(c.s)}`).join('; ')} | ${p.functions.map((f) => `\`${f.name}\` ${sec(f.s)}`).join('; ')} | ${p.herald.map((f) => `\`${f.name}\` ${sec(f.s)}`).join('; ')} |`,
        ),
        '',
      );
    }
  });
  if (footer) lines.push(`CPU profiles (one per thread, \`--cpu-prof\`): \`${profileDir}\`.`, '');
  return lines.join('\n');
}

module.exports = {
  procCounters,
  parseExposition,
  queueDepths,
  runtimeFromMetrics,
  StageRecorder,
  summariseProfiles,
  breakdownMarkdown,
  componentOf,
};
