#!/usr/bin/env node
/**
 * Two builds' whole pre-processing of a task alternated in one process
 * (issue 21): `preprocess` of this checkout and of `--root`, each for a
 * local-time task and a task of one instant over the same 10^7 list, the
 * same blacklist and the same filled attribute index, round after round,
 * each round in the other order, a forced GC before each call. It is the
 * pre-processing step of bench/local-time-broadcast.js without the cluster
 * (no HTTP, no scheduler, no sending), so two builds see the same load.
 *
 *   node --expose-gc bench/local-preprocess-ab.js --dir /tmp/h21idx --root ../main-before [--recipients 1e7] [--rounds 4]
 *
 * `--dir` must hold an index filled by bench/local-grouping.js with the same
 * --recipients. Prints each call's wall and CPU (process.cpuUsage: every
 * thread of the process) in ms, per build and kind, their medians and sums,
 * and whether the builds wrote the same lists for the units and groups.
 */
const path = require('node:path');
const fs = require('node:fs');
const os = require('node:os');
const { createRequire } = require('node:module');
const { arg, benchAudience, commit, loadAverage } = require('./lib');

const PLANNED_AT = Date.UTC(2026, 9, 24, 22);
const TASK = {
  deliverAt: { localTime: '09:00', windowMs: 3_600_000, missed: 'next_day', defaultTimeZone: 'Europe/Berlin' },
  expiresAt: PLANNED_AT + 3 * 86_400_000,
};

/** What `preprocess` needs from one build: its own dispatcher, audience and core. */
function build(root) {
  const from = createRequire(path.join(path.resolve(root), 'bench', 'local-preprocess-ab.js'));
  const dispatcher = from('@herald/dispatcher');
  return {
    preprocess: dispatcher.preprocess,
    buildFilterChain: dispatcher.buildFilterChain,
    planUnits: dispatcher.planUnits,
    ListRepository: from('@herald/audience').ListRepository,
    compileConfig: from('@herald/core/config').compileConfig,
    noopLogger: from('@herald/core/ports').noopLogger,
  };
}

/** One build's pre-processing deps over `dir`; `local` answers the task's local time or none. */
function depsOf(b, dir, blacklist, index, local) {
  const config = b.compileConfig({ uinSpaceBits: 32 });
  const lists = new b.ListRepository(dir);
  return {
    config,
    lists,
    filters: b.buildFilterChain({
      blacklists: { global: async () => blacklist, forAccount: async () => undefined },
      ledger: { async *audiencesOf() {} },
    }),
    planUnits: (taskId, count) =>
      b.planUnits(taskId, count, { config, executorIds: ['e1', 'e2'], loads: [], now: 0, logger: b.noopLogger }),
    localTime: { taskOf: async () => (local ? TASK : undefined), index, clock: { now: () => PLANNED_AT } },
    logger: b.noopLogger,
  };
}

const { median } = require('./paired');
const total = (xs) => xs.reduce((a, b) => a + b, 0);

async function main() {
  const dir = arg('--dir', undefined);
  if (dir === undefined) throw new Error('--dir: the index filled by bench/local-grouping.js is required');
  const root = arg('--root', undefined);
  if (root === undefined) throw new Error('--root: the other checkout (built) to compare with is required');
  const rounds = Number(arg('--rounds', '4'));
  const recipients = Number(arg('--recipients', '1e7'));
  const builds = { here: build(path.join(__dirname, '..')), there: build(root) };
  const { LevelAttributeIndex } = require('@herald/store-level');
  const { writeRecipientListFile } = require('@herald/audience');
  const audience = benchAudience(recipients, 0.3);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-preprocess-ab-'));
  await writeRecipientListFile(path.join(work, 'l_bench.hrl'), audience.list, 0);
  const index = await LevelAttributeIndex.open(dir);
  const figures = {};
  const files = {};
  let taskId = 100;
  process.stdout.write(
    `here ${path.resolve(__dirname, '..')} (commit ${commit()}), there ${root}, ${audience.list.length} uins, load ${loadAverage().toFixed(1)}\n`,
  );
  try {
    for (let round = 0; round < rounds; round++) {
      const names = round % 2 === 0 ? ['here', 'there'] : ['there', 'here'];
      for (const kind of round % 2 === 0 ? ['local', 'plain'] : ['plain', 'local']) {
        for (const name of names) {
          const id = ++taskId;
          const deps = depsOf(builds[name], work, audience.blacklist, index, kind === 'local');
          const request = {
            kind: 'preprocess.request',
            taskId: id,
            epoch: 1,
            listId: 'l_bench',
            accountId: 'bench',
            contentCrc: 1,
            speed: 0,
          };
          global.gc?.();
          const cpu0 = process.cpuUsage();
          const t0 = performance.now();
          const result = await builds[name].preprocess(request, deps);
          const wall = performance.now() - t0;
          const cpu = process.cpuUsage(cpu0);
          const key = `${name} ${kind}`;
          (figures[key] ??= []).push({ wall, cpu: (cpu.user + cpu.system) / 1000, load: loadAverage() });
          files[key] = await readAndRemove(work, id, result);
        }
      }
    }
  } finally {
    await index.close();
    fs.rmSync(work, { recursive: true, force: true });
  }
  for (const [key, runs] of Object.entries(figures).sort()) {
    const walls = runs.map((r) => r.wall);
    const cpus = runs.map((r) => r.cpu);
    process.stdout.write(
      `${key}: wall ${walls.map((w) => w.toFixed(0)).join(' / ')} ms (median ${median(walls).toFixed(0)}, sum ${total(walls).toFixed(0)}, best ${Math.min(...walls).toFixed(0)}); CPU ${cpus.map((c) => c.toFixed(0)).join(' / ')} (median ${median(cpus).toFixed(0)}); load ${runs.map((r) => r.load.toFixed(1)).join(' / ')}\n`,
    );
  }
  for (const kind of ['local', 'plain']) {
    const ratio = (f) => (f(figures[`here ${kind}`]) / f(figures[`there ${kind}`]) - 1) * 100;
    process.stdout.write(
      `${kind}: here over there, wall summed ${ratio((rs) => total(rs.map((r) => r.wall))).toFixed(1)}%, median ${ratio((rs) => median(rs.map((r) => r.wall))).toFixed(1)}%, best ${ratio((rs) => Math.min(...rs.map((r) => r.wall))).toFixed(1)}%\n`,
    );
  }
  const same = ['local', 'plain'].every((kind) => files[`here ${kind}`] === files[`there ${kind}`]);
  process.stdout.write(
    `same units' lists and groups written by both builds: ${same}, load ${loadAverage().toFixed(1)}\n`,
  );
}

/**
 * The bytes (past the header) of the list the task's units range over, its
 * delivery-order list when it has one, else its filtered list, and its
 * groups, as one digest; then the files go. (A local-time task's filtered list
 * is that delivery-order list since 20464bfe, sorted by uin before.)
 */
async function readAndRemove(dir, taskId, result) {
  const hash = require('node:crypto').createHash('sha1');
  const ordered = path.join(dir, `g_${taskId}.hrl`);
  hash.update(fs.readFileSync(fs.existsSync(ordered) ? ordered : path.join(dir, `f_${taskId}.hrl`)).subarray(32));
  hash.update(JSON.stringify(result.groups ?? null) + result.kept);
  for (const name of fs.readdirSync(dir))
    if (name.startsWith(`f_${taskId}.`) || name.startsWith(`g_${taskId}.`)) fs.rmSync(path.join(dir, name));
  return hash.digest('hex');
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
