#!/usr/bin/env node
/**
 * Two builds' local-time grouping alternated in one process (issue 21):
 * groupByLocalTime of this checkout and of `--root` over the same filled
 * index, round after round, each round in the other order, a forced GC before
 * each call. On a shared machine one process holding both builds sees the same
 * load, where bench/local-grouping.js --root compares processes minutes apart.
 *
 *   node --expose-gc bench/local-grouping-ab.js --dir /tmp/h21idx --root ../main-before [--recipients 1e7] [--rounds 8]
 *
 * `--dir` must hold an index filled by bench/local-grouping.js with the same
 * --recipients. Prints each build's CPU (process.cpuUsage: this thread and
 * libuv's) and wall per call, in ms, their medians, and whether the two
 * builds' delivery orders and groups agree.
 */
const path = require('node:path');
const { createRequire } = require('node:module');
const { arg, benchAudience, commit, loadAverage } = require('./lib');

const PLANNED_AT = Date.UTC(2026, 9, 24, 22);

function builds(root) {
  const here = createRequire(path.join(__dirname, 'local-grouping-ab.js'));
  const there = createRequire(path.join(path.resolve(root), 'bench', 'local-grouping-ab.js'));
  return {
    here: here('@herald/dispatcher').groupByLocalTime,
    there: there('@herald/dispatcher').groupByLocalTime,
    LevelAttributeIndex: here('@herald/store-level').LevelAttributeIndex,
  };
}

const median = (xs) => xs.slice().sort((a, b) => a - b)[xs.length >> 1];

function sameGrouping(a, b) {
  if (JSON.stringify(a.groups) !== JSON.stringify(b.groups) || a.order.length !== b.order.length) return false;
  for (let i = 0; i < a.order.length; i++) if (a.order[i] !== b.order[i]) return false;
  return true;
}

async function main() {
  const dir = arg('--dir', undefined);
  if (dir === undefined) throw new Error('--dir: the index filled by bench/local-grouping.js is required');
  const root = arg('--root', undefined);
  if (root === undefined) throw new Error('--root: the other checkout (built) to compare with is required');
  const rounds = Number(arg('--rounds', '8'));
  const recipients = Number(arg('--recipients', '1e7'));
  const { here, there, LevelAttributeIndex } = builds(root);
  const kept = Uint32Array.from(new Set(benchAudience(recipients, 0.3).list)).sort();
  const index = await LevelAttributeIndex.open(dir);
  const task = {
    deliverAt: { localTime: '09:00', window: '1h', missed: 'next_day', defaultTimeZone: 'Europe/Berlin' },
    expiresAt: PLANNED_AT + 3 * 86_400_000,
  };
  const calls = { here, there };
  const figures = { here: [], there: [] };
  const last = {};
  process.stdout.write(
    `here ${__dirname}/.. (commit ${commit()}), there ${root}, ${kept.length} recipients, load ${loadAverage().toFixed(1)}\n`,
  );
  try {
    for (let round = 0; round < rounds; round++) {
      for (const name of round % 2 === 0 ? ['here', 'there'] : ['there', 'here']) {
        global.gc?.();
        const cpu0 = process.cpuUsage();
        const t0 = performance.now();
        last[name] = await calls[name](kept, task, index, PLANNED_AT);
        const cpu = process.cpuUsage(cpu0);
        figures[name].push({
          cpu: Math.round((cpu.user + cpu.system) / 1000),
          wall: Math.round(performance.now() - t0),
        });
      }
    }
  } finally {
    await index.close();
  }
  for (const name of ['here', 'there']) {
    const cpu = figures[name].map((f) => f.cpu);
    const wall = figures[name].map((f) => f.wall);
    process.stdout.write(
      `${name}: CPU ${cpu.join(' / ')} (median ${median(cpu)}), wall ${wall.join(' / ')} (median ${median(wall)})\n`,
    );
  }
  process.stdout.write(
    `same delivery order and groups: ${sameGrouping(last.here, last.there)}, load ${loadAverage().toFixed(1)}\n`,
  );
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
