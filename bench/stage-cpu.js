#!/usr/bin/env node
/**
 * One 10^7 embedded fan-out (bench/embedded-fanout.js, the broadcast
 * bench/fanout.js runs) printing each stage's wall time and this process's
 * CPU over it (every thread: the tiers, the filter chain's workers, libuv's
 * pool), without a profiler attached. On a shared machine the CPU figure is
 * the one to compare; the wall time follows the load.
 *
 *   node bench/stage-cpu.js [--recipients 1e7] [--out stages.json]
 *
 * To compare two builds, run it from each worktree in turn (alternating).
 * With --out, the stage boundaries (process.hrtime, microseconds: the
 * CLOCK_MONOTONIC of `perf record -k mono`) and each thread's CPU at them are
 * written as JSON, to cut a `perf record` of the run at the stages.
 */
const fs = require('node:fs');
const os = require('node:os');
const { runEmbeddedFanout } = require('./embedded-fanout');
const { benchAudience } = require('./lib');

function parseArgs(argv) {
  const args = { recipients: 1e7, out: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--recipients') args.recipients = Number(argv[++i]);
    else if (argv[i] === '--out') args.out = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!(args.recipients >= 1)) throw new Error('bad --recipients');
  return args;
}

/** CPU seconds of each thread of this process, by thread id, from /proc (10 ms ticks). */
function threadCpu() {
  const threads = {};
  for (const tid of fs.readdirSync('/proc/self/task')) {
    try {
      const stat = fs.readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads[tid] = (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return threads;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const audience = benchAudience(args.recipients, 0.3);
  const marks = [];
  const mark = async (stage) => {
    const cpu = process.cpuUsage();
    marks.push({
      stage,
      us: Number(process.hrtime.bigint() / 1000n),
      cpuS: (cpu.user + cpu.system) / 1e6,
      threads: threadCpu(),
      load1: os.loadavg()[0],
    });
  };
  const result = await runEmbeddedFanout(audience, { onStage: mark });
  if (args.out !== undefined) fs.writeFileSync(args.out, JSON.stringify({ result, stages: marks }, null, 1));
  console.log(JSON.stringify(result));
  for (let i = 0; i + 1 < marks.length; i++) {
    const [from, to] = [marks[i], marks[i + 1]];
    const wallS = (to.us - from.us) / 1e6;
    console.log(
      `${from.stage}: wall ${wallS.toFixed(2)} s, CPU ${(to.cpuS - from.cpuS).toFixed(2)} s, load ${from.load1.toFixed(1)}`,
    );
  }
}

main().catch((error) => {
  console.error('bench:', error);
  process.exit(1);
});
