#!/usr/bin/env node
/**
 * The recipient-list file's two ends of pre-processing on their own: a whole
 * list loaded into shared memory (`loadRecipientList`, as the dispatcher
 * loads a task's list) and a filtered list written (`writeRecipientListFile`,
 * fsync included), 10^7 distinct sorted uins by default, from the page cache.
 *
 *   node bench/list-io.js [--recipients 1e7] [--runs 5] [--root <worktree>]
 *
 * --root loads @herald/audience from another build (a `git worktree` of an
 * older commit) so before and after run alternately in one session. CPU is
 * this thread's (/proc/thread-self/stat: the decode and encode loops, the
 * copies, page faults), steadier than wall time on a shared machine; wall
 * time includes the file I/O on libuv's threads and the fsync.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

function parseArgs(argv) {
  const args = { recipients: 1e7, runs: 5, root: undefined };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--recipients') args.recipients = Number(argv[++i]);
    else if (argv[i] === '--runs') args.runs = Number(argv[++i]);
    else if (argv[i] === '--root') args.root = argv[++i];
    else throw new Error(`unknown argument ${argv[i]}`);
  }
  if (!(args.recipients >= 1) || !(args.runs >= 1)) throw new Error('bad --recipients or --runs');
  return args;
}

/** This thread's CPU seconds (utime + stime, 10 ms ticks). */
function threadCpuS() {
  const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function timed(fn) {
  const cpu = threadCpuS();
  const t = process.hrtime.bigint();
  const value = await fn();
  return { value, wallS: Number(process.hrtime.bigint() - t) / 1e9, cpuS: threadCpuS() - cpu };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const audience = require(args.root === undefined ? '@herald/audience' : path.join(args.root, 'packages/audience'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-list-io-'));
  try {
    const uins = new Uint32Array(args.recipients);
    for (let i = 0; i < uins.length; i++) uins[i] = i * 7 + 3; // sorted, distinct
    const file = path.join(dir, 'list.hrl');
    await audience.writeRecipientListFile(file, uins, 3);
    const rows = [];
    for (let run = 0; run < args.runs; run++) {
      const load = await timed(() => audience.loadRecipientList(file, { uinLimit: 2 ** 32, shared: true }));
      if (load.value.length !== uins.length || load.value[12345] !== uins[12345]) throw new Error('bad load');
      const write = await timed(() => audience.writeRecipientListFile(path.join(dir, 'out.hrl'), load.value, 3));
      rows.push({ loadCpuS: load.cpuS, loadWallS: load.wallS, writeCpuS: write.cpuS, writeWallS: write.wallS });
    }
    const best = (key) => Math.min(...rows.map((r) => r[key]));
    console.log(
      JSON.stringify({
        root: args.root ?? 'this build',
        recipients: args.recipients,
        load1: os.loadavg()[0],
        best: {
          loadCpuS: best('loadCpuS'),
          loadWallS: best('loadWallS'),
          writeCpuS: best('writeCpuS'),
          writeWallS: best('writeWallS'),
        },
        runs: rows,
      }),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error('bench:', error);
  process.exit(1);
});
