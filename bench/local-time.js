#!/usr/bin/env node
/**
 * What local-time delivery adds to a broadcast's pre-processing
 * (docs/local-time.md): grouping the filtered list by its recipients' `tz`
 * bitsets (groupByLocalTime over a LevelAttributeIndex) and writing the
 * delivery-order list, against writing the filtered list alone, which every
 * task does. Sending is the same for both (the same units and batches, only
 * held until their instant), so this is the whole extra cost, waiting aside.
 *
 *   node bench/local-time.js [--recipients 1e6] [--record]
 *
 * The audience: `recipients` uins spread over the uin space, one of 24 zones
 * each, every 10th without a tz. With --record the table is appended to
 * bench/RESULTS.md. Files go to a temporary directory, removed at the end.
 */
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ListFlags } = require('@herald/core/recipient-list');
const { writeRecipientListFile } = require('@herald/audience');
const { groupByLocalTime } = require('@herald/dispatcher');
const { LevelAttributeIndex } = require('@herald/store-level');
const { LOCAL_TIME_ZONES: ZONES } = require('@herald/testing');
const { machine, commit, arg, fmt } = require('./lib');

const PUT_BATCH = 10_000;

async function timed(fn) {
  const t0 = performance.now();
  const value = await fn();
  return { value, s: (performance.now() - t0) / 1000 };
}

async function main() {
  const recipients = Number(arg('--recipients', '1e6'));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-local-time-'));
  const index = await LevelAttributeIndex.open(path.join(dir, 'attributes'));
  try {
    const stride = Math.max(1, Math.floor(2 ** 31 / recipients));
    const kept = Uint32Array.from({ length: recipients }, (_, i) => i * stride + 1);
    const load = await timed(async () => {
      for (let at = 0; at < kept.length; at += PUT_BATCH) {
        const users = [];
        for (let i = at; i < Math.min(at + PUT_BATCH, kept.length); i++)
          users.push(i % 10 === 9 ? { uin: kept[i] } : { uin: kept[i], tz: ZONES[i % ZONES.length] });
        await index.putUsers(users);
      }
    });
    process.stderr.write(`attributes stored in ${load.s.toFixed(1)} s\n`);
    const task = {
      deliverAt: { localTime: '09:00', windowMs: 3_600_000, missed: 'next_day', defaultTimeZone: 'UTC' },
      expiresAt: Date.UTC(2026, 9, 27),
    };
    const plannedAt = Date.UTC(2026, 9, 24, 22);
    const plain = await timed(() =>
      writeRecipientListFile(path.join(dir, 'f.hrl'), kept, ListFlags.SORTED | ListFlags.UNIQUE),
    );
    const grouping = await timed(() => groupByLocalTime(kept, task, index, plannedAt));
    const order = await timed(() => writeRecipientListFile(path.join(dir, 'g.hrl'), grouping.value.order));
    const extra = grouping.s + order.s;
    const row = `| ${fmt(recipients)} | ${ZONES.length} | ${grouping.value.groups.length} | ${grouping.s.toFixed(2)} | ${order.s.toFixed(2)} | ${plain.s.toFixed(2)} | ${fmt(recipients / extra)} |`;
    const table = [
      '| recipients | zones | groups | grouping (s) | delivery-order list (s) | filtered list alone (s) | recipients/s grouped |',
      '|---:|---:|---:|---:|---:|---:|---:|',
      row,
    ].join('\n');
    process.stdout.write(`${table}\n`);
    if (process.argv.includes('--record')) {
      const entry = `\n### Local-time grouping — ${new Date().toISOString().slice(0, 10)}, commit ${commit()}\n\nMachine: ${machine()}. Load average ${os.loadavg()[0].toFixed(2)}. Command: \`node bench/local-time.js --recipients ${recipients} --record\`.\n\n${table}\n`;
      fs.appendFileSync(path.join(__dirname, 'RESULTS.md'), entry);
    }
  } finally {
    await index.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
