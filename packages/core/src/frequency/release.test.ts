import { ErrorCodes, HeraldError } from '../errors';
import { compileFrequencyPolicy } from './policy';
import { murmur3 } from '../ring/murmur3';
import { FREQUENCY_HASH_SEED, budget, dayOf, dayStartsAt, releasedSlots, slotReleaseTimes, windowAt } from './release';

const MIN = 60_000;
const H = 60 * MIN;
const DAY = 24 * H;

/** 2024-03-10 00:00 UTC, and its day number. */
const MIDNIGHT = Date.UTC(2024, 2, 10);
const D = MIDNIGHT / DAY;

const policy = compileFrequencyPolicy();
/** User 42's release times on day D (ms after midnight), as first computed. */
const PINNED_42 = [12_805_466, 32_225_698, 52_456_501, 58_732_871, 72_111_352, 78_251_885];

/** An injected clock the tests move by hand; the functions under test only ever see `clock.now()`. */
class ManualClock {
  constructor(private at: number) {}
  now(): number {
    return this.at;
  }
  set(at: number): void {
    this.at = at;
  }
  advance(ms: number): void {
    this.at += ms;
  }
}

/** n uins spread over the whole 32-bit space, deterministic. */
function uins(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((Math.imul(i + 1, 0x9e3779b1) ^ (i & 0xff)) >>> 0);
  return out;
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof HeraldError ? error.code : 'not a HeraldError';
  }
  return undefined;
}

describe('dayOf / dayStartsAt', () => {
  it('numbers local days from 1970-01-01 and finds their midnights', () => {
    expect(dayOf(policy, MIDNIGHT)).toBe(D);
    expect(dayOf(policy, MIDNIGHT - 1)).toBe(D - 1);
    expect(dayOf(policy, MIDNIGHT + DAY - 1)).toBe(D);
    expect(dayStartsAt(policy, D)).toBe(MIDNIGHT);
    expect(dayStartsAt(policy, D + 1)).toBe(MIDNIGHT + DAY);
  });

  it('moves the day boundary with the UTC offset', () => {
    const beijing = compileFrequencyPolicy({ utcOffsetMinutes: 480 });
    const newYork = compileFrequencyPolicy({ utcOffsetMinutes: -300 });
    // 16:00 UTC on the 9th is local midnight of the 10th in UTC+8.
    expect(dayOf(beijing, MIDNIGHT - 8 * H)).toBe(D);
    expect(dayOf(beijing, MIDNIGHT - 8 * H - 1)).toBe(D - 1);
    expect(dayStartsAt(beijing, D)).toBe(MIDNIGHT - 8 * H);
    // 05:00 UTC on the 10th is local midnight of the 10th in UTC-5.
    expect(dayOf(newYork, MIDNIGHT + 5 * H - 1)).toBe(D - 1);
    expect(dayOf(newYork, MIDNIGHT + 5 * H)).toBe(D);
    expect(dayStartsAt(newYork, D)).toBe(MIDNIGHT + 5 * H);
  });
});

describe('slotReleaseTimes', () => {
  it('puts each slot inside its own competition window, slots ascending', () => {
    // Violations are collected and asserted once: a jest expect per value would make this slow.
    const outside: string[] = [];
    for (const uin of uins(2000)) {
      const times = slotReleaseTimes(policy, uin, D);
      if (times.length !== 6) outside.push(`${uin}: ${times.length} slots`);
      policy.windows.forEach((w, slot) => {
        const t = times[slot]!;
        if (!Number.isInteger(t) || t < MIDNIGHT + w.fromMs || t >= MIDNIGHT + w.toMs)
          outside.push(`${uin} slot ${slot}: ${t - MIDNIGHT}`);
      });
    }
    expect(outside).toEqual([]);
  });

  it('is deterministic per (uin, day, slot): the same policy compiled twice agrees, no state is kept', () => {
    const again = compileFrequencyPolicy({
      windows: [
        { fromMinute: 0, toMinute: 720, slots: 2 },
        { fromMinute: 720, toMinute: 1440, slots: 4 },
      ],
    });
    const users = uins(500);
    expect(users.map((uin) => slotReleaseTimes(again, uin, D))).toEqual(
      users.map((uin) => slotReleaseTimes(policy, uin, D)),
    );
    // Pinned values: a change of formula, key format or hash seed reshuffles every user's day, and must be deliberate.
    expect(slotReleaseTimes(policy, 42, D).map((t) => t - MIDNIGHT)).toEqual(PINNED_42);
    // The formula spelled out for slot 0 (window [0, 6 h)): floor(murmur3("uin/day/slot", seed) / 2^32 x length).
    expect(D).toBe(19_792);
    expect(Math.floor((murmur3('42/19792/0', FREQUENCY_HASH_SEED) / 2 ** 32) * 6 * H)).toBe(PINNED_42[0]);
  });

  it('gives the same user different times on different days', () => {
    let sameSlot0 = 0;
    for (const uin of uins(1000))
      if (slotReleaseTimes(policy, uin, D)[0] === slotReleaseTimes(policy, uin, D + 1)[0]! - DAY) sameSlot0++;
    expect(sameSlot0).toBeLessThan(3);
  });

  it('spreads users evenly over each window, independently per slot', () => {
    const users = uins(12_000);
    const first = users.map((uin) => slotReleaseTimes(policy, uin, D));
    // Nearly all distinct to the ms (birthday bound: ~3 collisions in a 6 h window).
    expect(new Set(first.map((t) => t[0])).size).toBeGreaterThan(11_970);
    for (const slot of [0, 3]) {
      const w = policy.windows[slot]!;
      const buckets = new Array<number>(6).fill(0);
      for (const t of first) buckets[Math.floor(((t[slot]! - MIDNIGHT - w.fromMs) * 6) / (w.toMs - w.fromMs))]!++;
      // 2,000 expected per bucket, sd ~41: 1,800..2,200 is a loose bound that a clustered hash fails.
      for (const count of buckets) {
        expect(count).toBeGreaterThan(1800);
        expect(count).toBeLessThan(2200);
      }
    }
    // Slot 0 and slot 1 positions uncorrelated: an early first slot says nothing about the second.
    const fraction = (t: number[], slot: number) => {
      const w = policy.windows[slot]!;
      return (t[slot]! - MIDNIGHT - w.fromMs) / (w.toMs - w.fromMs);
    };
    const xs = first.map((t) => fraction(t, 0));
    const ys = first.map((t) => fraction(t, 1));
    expect(Math.abs(correlation(xs, ys))).toBeLessThan(0.05);
  });
});

describe('releasedSlots over whole days on an injected clock', () => {
  it('releases each slot at its time, never before its window opens, all by the window close, and starts again at midnight', () => {
    const users = uins(40);
    // Each user's release times, by day (D - 1, D, D + 1).
    const times = new Map(
      users.map((uin) => [uin, [D - 1, D, D + 1].map((day) => slotReleaseTimes(policy, uin, day))]),
    );
    const clock = new ManualClock(MIDNIGHT - DAY);
    const last = new Map<number, number>();
    const violations: string[] = [];
    // Three whole days, minute by minute, plus the last ms of each minute.
    for (let step = 0; step < 3 * 1440; step++) {
      for (const at of [clock.now(), clock.now() + MIN - 1]) {
        const day = dayOf(policy, at);
        const sinceMidnight = at - dayStartsAt(policy, day);
        const closed = policy.windows.filter((w) => w.toMs <= sinceMidnight).length;
        const opened = policy.windows.filter((w) => w.fromMs <= sinceMidnight).length;
        for (const uin of users) {
          const released = releasedSlots(policy, uin, at);
          const expected = times.get(uin)![day - D + 1]!.filter((t) => t <= at).length;
          const previous = last.get(uin) ?? 0;
          const wrong =
            released !== expected
              ? `released ${released}, but ${expected} release times have passed`
              : released < closed
                ? `released ${released} with ${closed} windows closed`
                : released > opened
                  ? `released ${released} with only ${opened} windows opened`
                  : sinceMidnight >= MIN && released < previous
                    ? `went down from ${previous} to ${released} within the day`
                    : undefined;
          if (wrong !== undefined) violations.push(`uin ${uin} at ${new Date(at).toISOString()}: ${wrong}`);
          last.set(uin, released);
        }
      }
      clock.advance(MIN);
    }
    expect(violations).toEqual([]);
    // The sweep saw every user go 0 -> 6 each day: 3 resets at midnight, 6 releases a day.
    expect([...last.values()].every((n) => n === 6)).toBe(true);
  });

  it('flips each slot exactly at its release time: not 1 ms before', () => {
    const wrong: string[] = [];
    for (const uin of uins(2000)) {
      slotReleaseTimes(policy, uin, D).forEach((t, slot) => {
        const before = releasedSlots(policy, uin, t - 1);
        const at = releasedSlots(policy, uin, t);
        if (before !== slot || at !== slot + 1) wrong.push(`uin ${uin} slot ${slot}: ${before} at t - 1, ${at} at t`);
      });
    }
    expect(wrong).toEqual([]);
  });

  it('has every slot released at the last ms of the day and (nearly) none at midnight', () => {
    const users = uins(5000);
    expect(users.filter((uin) => releasedSlots(policy, uin, MIDNIGHT + DAY - 1) !== 6)).toEqual([]);
    const releasedAtMidnight = users.reduce((sum, uin) => sum + releasedSlots(policy, uin, MIDNIGHT + DAY), 0);
    expect(releasedAtMidnight).toBeLessThanOrEqual(1);
  });
});

describe('budget', () => {
  it('carries an unused slot over from window to window within the day', () => {
    const uin = 123_456;
    const [s0, s1, s2] = slotReleaseTimes(policy, uin, D) as [number, number, number];
    expect(budget(policy, uin, 0, s0 - 1)).toBe(0);
    expect(budget(policy, uin, 0, s0)).toBe(1);
    // Slot 0 unused through its window: still there in window 1, and with slot 1 there are 2.
    expect(budget(policy, uin, 0, MIDNIGHT + 6 * H)).toBe(1);
    expect(budget(policy, uin, 0, s1)).toBe(2);
    // One broadcast received in the morning: one left, carried into the afternoon.
    expect(budget(policy, uin, 1, MIDNIGHT + 12 * H)).toBe(1);
    expect(budget(policy, uin, 1, s2)).toBe(2);
    expect(budget(policy, uin, 6, MIDNIGHT + DAY - 1)).toBe(0);
    expect(budget(policy, uin, 0, MIDNIGHT + DAY - 1)).toBe(6);
  });

  it('does not carry unused slots into the next day', () => {
    const users = uins(1000);
    expect(users.filter((uin) => budget(policy, uin, 0, MIDNIGHT + DAY - 1) !== 6)).toEqual([]);
    // used is the new day's count (0): yesterday's 6 unused slots are gone; only a slot released at 00:00:00.000 exactly counts.
    const atMidnight = (uin: number) => (slotReleaseTimes(policy, uin, D + 1)[0] === MIDNIGHT + DAY ? 1 : 0);
    expect(users.filter((uin) => budget(policy, uin, 0, MIDNIGHT + DAY) !== atMidnight(uin))).toEqual([]);
  });

  it('never goes below 0 when more was used than released (an overshoot)', () => {
    expect(budget(policy, 7, 5, MIDNIGHT + 1)).toBe(0);
  });

  it("stops the seed's race: a task created at 23:45 for 00:00 tomorrow finds tomorrow's slots not yet released", () => {
    const clock = new ManualClock(MIDNIGHT + 23 * H + 45 * MIN);
    const createdAt = clock.now();
    const sendAt = MIDNIGHT + DAY; // the earliest allowed: 15 minutes ahead
    expect(sendAt - createdAt).toBe(15 * MIN);
    // It counts against tomorrow's budget, not today's.
    expect(dayOf(policy, createdAt)).toBe(D);
    expect(dayOf(policy, sendAt)).toBe(D + 1);

    const users = uins(10_000);
    const reachable = (at: number) => users.filter((uin) => budget(policy, uin, 0, at) > 0).length;
    // Today, a user who received 6 is done; that says nothing about tomorrow.
    expect(users.every((uin) => budget(policy, uin, 6, createdAt) === 0)).toBe(true);

    clock.set(sendAt);
    // At 00:00 the first window's slot is released for (almost) nobody: no first-come grab.
    expect(reachable(clock.now())).toBeLessThanOrEqual(1);
    // It comes out over the window: about 15/360 by 00:15, about half by 03:00, everybody by 06:00.
    clock.advance(15 * MIN);
    expect(reachable(clock.now())).toBeGreaterThan(250);
    expect(reachable(clock.now())).toBeLessThan(600);
    clock.set(sendAt + 3 * H);
    expect(reachable(clock.now())).toBeGreaterThan(4700);
    expect(reachable(clock.now())).toBeLessThan(5300);
    clock.set(sendAt + 6 * H);
    expect(reachable(clock.now())).toBe(10_000);
  });
});

describe('windowAt', () => {
  it('names the competition window holding now, its slot and its bounds', () => {
    expect(windowAt(policy, MIDNIGHT)).toEqual({ day: D, slot: 0, opensAt: MIDNIGHT, closesAt: MIDNIGHT + 6 * H });
    expect(windowAt(policy, MIDNIGHT + 6 * H - 1)?.slot).toBe(0);
    expect(windowAt(policy, MIDNIGHT + 6 * H)?.slot).toBe(1);
    expect(windowAt(policy, MIDNIGHT + 13.5 * H)).toEqual({
      day: D,
      slot: 2,
      opensAt: MIDNIGHT + 12 * H,
      closesAt: MIDNIGHT + 15 * H,
    });
    expect(windowAt(policy, MIDNIGHT + DAY - 1)).toEqual({
      day: D,
      slot: 5,
      opensAt: MIDNIGHT + 21 * H,
      closesAt: MIDNIGHT + DAY,
    });
  });

  it('is undefined in a gap, where released slots still carry over', () => {
    const gappy = compileFrequencyPolicy({
      windows: [
        { fromMinute: 8 * 60, toMinute: 10 * 60, slots: 1 },
        { fromMinute: 18 * 60, toMinute: 20 * 60, slots: 1 },
      ],
    });
    expect(windowAt(gappy, MIDNIGHT + 7 * H)).toBeUndefined();
    expect(windowAt(gappy, MIDNIGHT + 9 * H)).toEqual({
      day: D,
      slot: 0,
      opensAt: MIDNIGHT + 8 * H,
      closesAt: MIDNIGHT + 10 * H,
    });
    expect(windowAt(gappy, MIDNIGHT + 12 * H)).toBeUndefined();
    expect(windowAt(gappy, MIDNIGHT + 21 * H)).toBeUndefined();
    expect(releasedSlots(gappy, 99, MIDNIGHT + 7 * H)).toBe(0);
    expect(budget(gappy, 99, 0, MIDNIGHT + 12 * H)).toBe(1);
    expect(budget(gappy, 99, 0, MIDNIGHT + 23 * H)).toBe(2);
  });

  it('follows local days in another time zone', () => {
    const beijing = compileFrequencyPolicy({ utcOffsetMinutes: 480 });
    // 04:00 UTC is 12:00 in UTC+8: the first afternoon window opens.
    expect(windowAt(beijing, MIDNIGHT + 4 * H)).toEqual({
      day: D,
      slot: 2,
      opensAt: MIDNIGHT + 4 * H,
      closesAt: MIDNIGHT + 7 * H,
    });
  });
});

describe('time zones', () => {
  it('shifts every release by the offset and keeps each user on the same local schedule', () => {
    const beijing = compileFrequencyPolicy({ utcOffsetMinutes: 480 });
    const newYork = compileFrequencyPolicy({ utcOffsetMinutes: -300 });
    const users = uins(300);
    const utc = users.map((uin) => slotReleaseTimes(policy, uin, D));
    expect(users.map((uin) => slotReleaseTimes(beijing, uin, D))).toEqual(
      utc.map((times) => times.map((t) => t - 8 * H)),
    );
    expect(users.map((uin) => slotReleaseTimes(newYork, uin, D))).toEqual(
      utc.map((times) => times.map((t) => t + 5 * H)),
    );
    // The last ms of the local day has all 6; the next ms is the new local day.
    const beijingMidnight = MIDNIGHT + DAY - 8 * H;
    expect(users.filter((uin) => releasedSlots(beijing, uin, beijingMidnight - 1) !== 6)).toEqual([]);
    expect(users.reduce((sum, uin) => sum + releasedSlots(beijing, uin, beijingMidnight), 0)).toBeLessThanOrEqual(1);
    // While UTC's day, at 16:00, has 3 windows closed and the fourth open.
    expect(users.filter((uin) => releasedSlots(policy, uin, beijingMidnight) < 3)).toEqual([]);
  });
});

describe('bad input', () => {
  it('is a ValidationError', () => {
    for (const uin of [-1, 2 ** 32, 1.5, Number.NaN]) {
      expect(codeOf(() => slotReleaseTimes(policy, uin, D))).toBe(ErrorCodes.VALIDATION_FAILED);
      expect(codeOf(() => releasedSlots(policy, uin, MIDNIGHT))).toBe(ErrorCodes.VALIDATION_FAILED);
    }
    for (const now of [Number.NaN, Infinity, '1' as unknown as number])
      expect(codeOf(() => dayOf(policy, now))).toBe(ErrorCodes.VALIDATION_FAILED);
    expect(codeOf(() => slotReleaseTimes(policy, 1, 1.5))).toBe(ErrorCodes.VALIDATION_FAILED);
    expect(codeOf(() => budget(policy, 1, -1, MIDNIGHT))).toBe(ErrorCodes.VALIDATION_FAILED);
    expect(codeOf(() => budget(policy, 1, 0.5, MIDNIGHT))).toBe(ErrorCodes.VALIDATION_FAILED);
  });
});

function correlation(xs: number[], ys: number[]): number {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  return sxy / Math.sqrt(sxx * syy);
}
