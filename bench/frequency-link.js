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
 * and without daylight saving) and the rest none. The attribute index is given
 * to the filter either way (a build before per-user zones ignores it). Rate =
 * recipients / wall time, best of --runs. The stores live in a temporary
 * directory, removed at the end.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { compileFrequencyPolicy } = require('@herald/core/frequency');
const { LevelAttributeIndex, LevelFrequencyCounter } = require('@herald/store-level');
const { frequencyFilter } = require('@herald/dispatcher');
const { arg, commit, fmt } = require('./lib');

const ZONES = [
  'Pacific/Honolulu', 'America/Anchorage', 'America/Los_Angeles', 'America/Denver', 'America/Chicago',
  'America/New_York', 'America/Sao_Paulo', 'Atlantic/Azores', 'Europe/London', 'Europe/Berlin',
  'Europe/Athens', 'Europe/Moscow', 'Asia/Dubai', 'Asia/Karachi', 'Asia/Kolkata', 'Asia/Dhaka',
  'Asia/Bangkok', 'Asia/Shanghai', 'Asia/Tokyo', 'Australia/Sydney', 'Pacific/Noumea', 'Pacific/Auckland',
  '+05:45', '-03:30',
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
    const filter = frequencyFilter({ policy, counter, index, clock: { now: () => now } });
    let best = Infinity;
    let kept = 0;
    for (let run = 0; run < runs; run++) {
      const input = uins.slice();
      const t0 = performance.now();
      kept = (await filter.apply(input, { taskId: 9, accountId: 'bench', contentCrc: 1 })).length;
      best = Math.min(best, (performance.now() - t0) / 1000);
    }
    console.log(
      `commit ${commit()} recipients ${fmt(recipients)} zones ${zones} kept ${fmt(kept)} best ${best.toFixed(3)} s ` +
        `rate ${fmt(recipients / best)}/s load ${os.loadavg()[0].toFixed(1)}`,
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
