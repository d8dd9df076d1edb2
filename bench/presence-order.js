#!/usr/bin/env node
/**
 * The presence agent's event-time order (core PresenceOrder, docs/presence.md)
 * alone: events of distinct random uins admitted one after another with the
 * default options (10-minute window, 10^7 users), timed per 2 x 10^6 events,
 * with the resident set and heap at the end. `--old` runs instead the Map
 * kept before 2026-11-29 (below, for comparison), which walked its whole
 * table on every event once it held more than 10^7 users inside the window:
 * give it `--events 10003000` to see that, not more.
 *
 *   node bench/presence-order.js [--events 3e7] [--old]
 */
const { PresenceOrder } = require('@herald/core/presence');
const { arg } = require('./lib');

/** The order before 2026-11-29: a Map pruned of users outside the window whenever it held more than maxTracked. */
class MapOrder {
  constructor(options) {
    this.options = options;
    this.lastAt = new Map();
    this.newestAt = -Infinity;
  }

  admit(uin, at) {
    const last = this.lastAt.get(uin);
    if (last !== undefined && at < last) return false;
    this.lastAt.set(uin, at);
    if (at > this.newestAt) this.newestAt = at;
    if (this.lastAt.size > this.options.maxTracked) {
      const horizon = this.newestAt - this.options.windowMs;
      for (const [u, a] of this.lastAt) if (a < horizon) this.lastAt.delete(u);
    }
    return true;
  }
}

const events = Number(arg('--events', 3e7));
const old = process.argv.includes('--old');
const options = { windowMs: 600_000, maxTracked: 10_000_000 };
const order = old ? new MapOrder(options) : new PresenceOrder(options);
const REPORT_EVERY = 2_000_000;
let uin = 12345;
let at = Date.now();
let mark = performance.now();
for (let i = 1; i <= events; i++) {
  uin = (Math.imul(uin, 1103515245) + 12345) >>> 0; // distinct enough: a login storm of new users
  order.admit(uin, (at += 0.05)); // 20 events a millisecond: 3 x 10^7 inside the 10-minute window
  // Past 10^7 the old order slows by orders of magnitude: report each 1,000 there, so it ends.
  const every = old && i > options.maxTracked ? 1000 : REPORT_EVERY;
  if (i % every === 0 || i === events) {
    const now = performance.now();
    process.stdout.write(`${i} events: ${(now - mark).toFixed(0)} ms for the last ${i % every || every}\n`);
    mark = now;
  }
}
const { rss, heapUsed } = process.memoryUsage();
process.stdout.write(
  `${old ? 'Map order (before)' : 'PresenceOrder'}: rss ${(rss / 2 ** 20).toFixed(0)} MiB, heap ${(heapUsed / 2 ** 20).toFixed(0)} MiB\n`,
);
