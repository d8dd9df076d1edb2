#!/usr/bin/env node
/**
 * The frequency link of the filter chain on its own (docs/frequency.md): a
 * sorted audience of N recipients (dense uins 1..N, a third of them with two
 * uses counted today) through frequencyFilter with the embedded stores, the
 * LevelFrequencyCounter and the LevelAttributeIndex, at 13:30 UTC.
 *
 *   node bench/frequency-link.js [--recipients 1e6] [--zones 24] [--runs 3]
 *
 * With --zones 0 no user has a `tz` (every user on frequency.utcOffsetMinutes);
 * with --zones 24, 90% of the users carry one of 24 zones (IANA names with
 * and without daylight saving) and the rest none. Three links run in turn on
 * the same stores: `fixed`, the link as it was before per-user zones (one
 * local day for everyone, reproduced here), `no-tz`, today's link without the
 * attribute index, and `zoned`, today's link reading each user's zone. Rate =
 * recipients / wall time, best of --runs (round-robin, so all three see the
 * same load). The stores live in a temporary
 * directory, removed at the end.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { compileFrequencyPolicy, withinBudget } = require('@herald/core/frequency');
const { LevelAttributeIndex, LevelFrequencyCounter } = require('@herald/store-level');
const { frequencyFilter } = require('@herald/dispatcher');
const { arg, commit, fmt } = require('./lib');

/** The dispatcher's slicing helper, as the link before per-user zones used it (filters/slices.ts). */
async function keepInSlices(uins, slice, keep) {
  let kept = 0;
  for (let start = 0; start < uins.length; start += slice) {
    const within = await keep(uins.subarray(start, start + slice));
    uins.set(within, kept);
    kept += within.length;
  }
  return uins.subarray(0, kept);
}

const ZONES = [
  'Pacific/Honolulu',
  'America/Anchorage',
  'America/Los_Angeles',
  'America/Denver',
  'America/Chicago',
  'America/New_York',
  'America/Sao_Paulo',
  'Atlantic/Azores',
  'Europe/London',
  'Europe/Berlin',
  'Europe/Athens',
  'Europe/Moscow',
  'Asia/Dubai',
  'Asia/Karachi',
  'Asia/Kolkata',
  'Asia/Dhaka',
  'Asia/Bangkok',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Australia/Sydney',
  'Pacific/Noumea',
  'Pacific/Auckland',
  '+05:45',
  '-03:30',
];

async function main() {
  const recipients = Math.round(Number(arg('--recipients', '1e6')));
  const zones = Number(arg('--zones', '24'));
  const runs = Number(arg('--runs', '3'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-frequency-link-'));
  const now = Date.UTC(2026, 5, 1, 13, 30);
  const policy = compileFrequencyPolicy();
  const counter = await LevelFrequencyCounter.open(path.join(dir, 'frequency'));
  const index = await LevelAttributeIndex.open(path.join(dir, 'attributes'));
  try {
    const uins = Uint32Array.from({ length: recipients }, (_, i) => i + 1);
    const day = Math.floor(now / 86_400_000);
    const used = uins.filter((uin) => uin % 3 === 0);
    for (let at = 0; at < used.length; at += 65_536)
      await counter.consume([
        { taskId: 1, day, uins: used.subarray(at, at + 65_536) },
        { taskId: 2, day, uins: used.subarray(at, at + 65_536) },
      ]);
    if (zones > 0) {
      for (let at = 0; at < recipients; at += 10_000) {
        const users = [];
        for (let uin = at + 1; uin <= Math.min(recipients, at + 10_000); uin++)
          users.push(uin % 10 === 0 ? { uin } : { uin, tz: ZONES[uin % zones] });
        await index.putUsers(users);
      }
    }
    // Three links, run in turn (round-robin, best of --runs each) on the same stores under the same load:
    //   fixed   the link as it was before per-user zones (one day, withinBudget), reproduced here;
    //   no-tz   frequencyFilter without the attribute index (every user on the fixed offset);
    //   zoned   frequencyFilter with the attribute index (each user with a tz on their own day).
    const clock = { now: () => now };
    const links = {
      fixed: {
        apply: (list) =>
          keepInSlices(
            list,
            65_536,
            async (part) => withinBudget(policy, part, await counter.used(part, day), now).kept,
          ),
      },
      'no-tz': frequencyFilter({ policy, counter, clock }),
      zoned: frequencyFilter({ policy, counter, index, clock }),
    };
    const best = Object.fromEntries(Object.keys(links).map((name) => [name, Infinity]));
    const kept = {};
    for (let run = 0; run < runs; run++) {
      for (const [name, link] of Object.entries(links)) {
        const input = uins.slice();
        const t0 = performance.now();
        kept[name] = (await link.apply(input, { taskId: 9, accountId: 'bench', contentCrc: 1 })).length;
        best[name] = Math.min(best[name], (performance.now() - t0) / 1000);
      }
    }
    for (const name of Object.keys(links))
      console.log(
        `commit ${commit()} recipients ${fmt(recipients)} zones ${zones} link ${name} kept ${fmt(kept[name])} ` +
          `best ${best[name].toFixed(3)} s rate ${fmt(recipients / best[name])}/s load ${os.loadavg()[0].toFixed(1)}`,
      );
  } finally {
    await counter.close();
    await index.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
