#!/usr/bin/env node
/**
 * A local-time task's delivery report, in both layouts of its lists (issue
 * 21, docs/local-time.md): the filtered list written group after group (this
 * release: the report merges the groups' runs) and an earlier release's
 * uin-sorted filtered list beside a second file in delivery order (the report
 * walks the sorted list and finds each row's position in the second file with
 * RunsCursor). One process, no cluster: the task's files and delivery records
 * are written directly, then the interface's reportChunks (NDJSON) is drained
 * for each layout in turn, --runs times, and the two reports are checked
 * equal. A canary task and a plain task of the same recipients are drained
 * beside them: the report's other two paths.
 *
 *   node bench/local-report.js [--recipients 1e6] [--groups 24] [--runs 3]
 *
 * Uses the built packages (`npx tsc -b` first).
 */
const { link, mkdtemp, rm, writeFile } = require('node:fs/promises');
const { createHash } = require('node:crypto');
const os = require('node:os');
const path = require('node:path');
const { encodeRemovedSets, onlineBitsOf } = require('@herald/core/fate');
const { ListFlags } = require('@herald/core/recipient-list');
const { ListRepository, removedPathOf, writeRecipientListFile } = require('@herald/audience');
const { LevelDeliveryRecordLog } = require('@herald/store-level');
// The report's generator is the interface's own, not part of its package's API: required from its build.
const { ndjsonLines, reportChunks } = require('../packages/interface/dist/recipient-report.js');
const { arg, commit, fmt, loadAverage, machine } = require('./lib');

const NOW = Date.UTC(2026, 10, 29);
const BATCH = 4096;

/**
 * Writes task `id`'s files in `layout` and its records; answers the task and the report's dependencies.
 * Besides the local-time layouts: a canary task (its sample, the uins of group 0, then the rest, each
 * sorted) and a plain task (one sorted list), the report's other paths, for comparison.
 */
async function build(lists, records, id, layout, kept, groupOf, groupCount) {
  const order = [];
  const runCount = layout === 'plain' ? 1 : layout === 'canary' ? 2 : groupCount;
  const runOf = (uin) => (layout === 'plain' ? 0 : layout === 'canary' ? Math.min(1, groupOf(uin)) : groupOf(uin));
  for (let g = 0; g < runCount; g++) for (const uin of kept) if (runOf(uin) === g) order.push(uin);
  const groups = [];
  for (let g = 0, start = 0; g < runCount; g++) {
    const end = start + kept.filter((uin) => runOf(uin) === g).length;
    groups.push({ offsetMinutes: g * 30, releaseAt: NOW - 60_000 + g, start, end, skipped: false, released: true });
    start = end;
  }
  const [f, g] = [lists.pathOf(`f_${id}`), lists.pathOf(`g_${id}`)];
  if (layout === 'runs') {
    await writeRecipientListFile(f, Uint32Array.from(order), ListFlags.UNIQUE);
    await link(f, g);
  } else if (layout === 'sorted') {
    await writeRecipientListFile(f, kept, ListFlags.SORTED | ListFlags.UNIQUE);
    await writeRecipientListFile(g, Uint32Array.from(order));
  } else {
    await writeRecipientListFile(
      f,
      Uint32Array.from(order),
      ListFlags.UNIQUE | (layout === 'plain' ? ListFlags.SORTED : 0),
    );
  }
  await writeFile(removedPathOf(f), encodeRemovedSets([], true));
  for (let from = 0; from < order.length; from += BATCH) {
    const uins = Uint32Array.from(order.slice(from, from + BATCH));
    const online = uins.filter((uin) => uin % 10 < 3);
    await records.recordBatch({
      taskId: id,
      from,
      count: uins.length,
      online: onlineBitsOf(uins, online),
      executor: 'e1',
      at: NOW,
    });
  }
  const units = groups.map((group, unitNo) => ({
    unitNo,
    start: group.start,
    end: group.end,
    checkpoint: group.end,
    executorId: 'e1',
    state: 'DONE',
  }));
  const task = {
    id,
    state: 'COMPLETED',
    filteredListId: `f_${id}`,
    expiresAt: NOW + 86_400_000,
    report:
      layout === 'plain'
        ? { kept: kept.length }
        : layout === 'canary'
          ? { kept: kept.length, canary: { sample: groups[0].end } }
          : { kept: kept.length, localGroups: groups },
  };
  const deps = {
    store: { listUnits: async () => units },
    lists,
    deliveryRecords: records,
    clock: { now: () => NOW },
    uinLimit: 2 ** 32,
  };
  return { task, deps };
}

/** Drains the report; its rows, bytes, seconds and digest (the task id left out, so two tasks compare). */
async function drain({ task, deps }) {
  const hash = createHash('sha1');
  let bytes = 0;
  const started = process.hrtime.bigint();
  for await (const chunk of reportChunks(task, undefined, deps, ndjsonLines(0))) {
    bytes += chunk.length;
    hash.update(chunk);
  }
  return { bytes, seconds: Number(process.hrtime.bigint() - started) / 1e9, digest: hash.digest('hex') };
}

async function main() {
  const recipients = Number(arg('--recipients', '1e6'));
  const groupCount = Number(arg('--groups', '24'));
  const runs = Number(arg('--runs', '3'));
  const dir = await mkdtemp(path.join(os.tmpdir(), 'herald-local-report-'));
  const records = await LevelDeliveryRecordLog.open(path.join(dir, 'records'));
  try {
    const lists = new ListRepository(dir);
    // Uins spread over 2^32, each in a group by a hash of it (a zone, as users are spread over zones).
    const kept = new Uint32Array(recipients);
    for (let i = 0; i < recipients; i++) kept[i] = Math.floor((i * 2 ** 32) / recipients) + (i % 97);
    const groupOf = (uin) => (Math.imul(uin, 2654435761) >>> 0) % groupCount;
    const tasks = {
      runs: await build(lists, records, 1, 'runs', kept, groupOf, groupCount),
      sorted: await build(lists, records, 2, 'sorted', kept, groupOf, groupCount),
      canary: await build(lists, records, 3, 'canary', kept, groupOf, groupCount),
      plain: await build(lists, records, 4, 'plain', kept, groupOf, groupCount),
    };
    const names = {
      runs: 'one list in runs (this release)',
      sorted: "sorted list + delivery order (earlier release's)",
      canary: 'canary: sample then the rest',
      plain: 'plain: one sorted list',
    };
    process.stdout.write(
      `${machine()}, commit ${commit()}, ${fmt(recipients)} recipients in ${groupCount} groups, load ${loadAverage().toFixed(1)}\n`,
    );
    const digests = {};
    for (let run = 1; run <= runs; run++) {
      const layouts = ['runs', 'sorted', 'canary', 'plain'];
      for (const layout of run % 2 === 1 ? layouts : layouts.reverse()) {
        const { bytes, seconds, digest } = await drain(tasks[layout]);
        (digests[layout] ??= new Set()).add(digest);
        process.stdout.write(
          `run ${run} ${names[layout]}: ${fmt(recipients / seconds)} rows/s (${seconds.toFixed(2)} s, ${fmt(bytes)} bytes), load ${loadAverage().toFixed(1)}\n`,
        );
      }
    }
    const same =
      digests.runs.size === 1 && digests.sorted.size === 1 && [...digests.runs][0] === [...digests.sorted][0];
    process.stdout.write(`both local-time layouts wrote the same report: ${same}\n`);
    if (!same) process.exitCode = 1;
  } finally {
    await records.close();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
