import { ErrorCodes, HeraldError } from '../errors';
import { quietHoursEnd } from '../time/quiet-hours';
import { withinBudget } from './filter';
import { compileFrequencyPolicy } from './policy';
import { budget, dayOf, releaseClock, releasedSlots } from './release';
import { ReleaseClockTable, userBudget, userDayOf, userReleaseClock, withinZonedBudget } from './zoned';

const MIN = 60_000;
const H = 60 * MIN;
const DAY = 24 * H;
const policy = compileFrequencyPolicy();
const cest = compileFrequencyPolicy({ utcOffsetMinutes: 120 });
const cet = compileFrequencyPolicy({ utcOffsetMinutes: 60 });

/** Berlin leaves summer time at 01:00 UTC on Sunday 25 October 2026. */
const BERLIN_FALL_BACK = Date.UTC(2026, 9, 25, 1);

function users(n: number): number[] {
  return Array.from({ length: n }, (_, i) => (Math.imul(i + 1, 0x9e3779b1) ^ (i & 0xff)) >>> 0).sort((a, b) => a - b);
}

describe("a user's own local day", () => {
  it('starts at local midnight in the zone, with the offset of that day (DST)', () => {
    const oct25 = Date.UTC(2026, 9, 25) / DAY;
    // Sunday 25 October starts at 00:00 CEST = 22:00 UTC on the 24th, and ends at 00:00 CET = 23:00 UTC on the 25th.
    expect(userDayOf(policy, 'Europe/Berlin', Date.UTC(2026, 9, 24, 22) - 1)).toBe(oct25 - 1);
    expect(userDayOf(policy, 'Europe/Berlin', Date.UTC(2026, 9, 24, 22))).toBe(oct25);
    expect(userDayOf(policy, 'Europe/Berlin', Date.UTC(2026, 9, 25, 23) - 1)).toBe(oct25);
    expect(userDayOf(policy, 'Europe/Berlin', Date.UTC(2026, 9, 25, 23))).toBe(oct25 + 1);
    // A fixed policy offset gets one of the two boundaries wrong: +60 ends the 24th an hour late.
    expect(dayOf(cet, Date.UTC(2026, 9, 24, 22, 30))).toBe(oct25 - 1);
  });

  it("releases a zone's slots on its wall clock: CEST's times before the change, CET's after", () => {
    const before = BERLIN_FALL_BACK - 3 * H; // Saturday night, CEST
    const after = BERLIN_FALL_BACK + 10 * H; // Sunday noon, CET
    const wrong: string[] = [];
    for (const uin of users(400)) {
      for (let t = before; t < before + 2 * H; t += 7 * MIN)
        if (releasedSlots(cest, uin, t) !== userBudget(policy, 'Europe/Berlin', uin, 0, t)) wrong.push(`${uin}@${t}`);
      for (let t = after; t < after + 2 * H; t += 7 * MIN)
        if (releasedSlots(cet, uin, t) !== userBudget(policy, 'Europe/Berlin', uin, 0, t)) wrong.push(`${uin}@${t}`);
    }
    expect(wrong).toEqual([]);
  });

  it('takes a fixed offset as the policy would, and the policy offset without a zone', () => {
    const india = compileFrequencyPolicy({ utcOffsetMinutes: 330 });
    const at = Date.UTC(2026, 2, 29, 3, 17);
    for (const uin of users(300)) {
      expect(userBudget(policy, '+05:30', uin, 1, at)).toBe(budget(india, uin, 1, at));
      expect(userBudget(cet, undefined, uin, 1, at)).toBe(budget(cet, uin, 1, at));
    }
    expect(userReleaseClock(cet, undefined, at)).toEqual(releaseClock(cet, at));
  });

  it('refuses a bad count or uin as budget() does', () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error instanceof HeraldError ? error.code : 'other';
      }
      return undefined;
    };
    expect(code(() => userBudget(policy, 'UTC', 1, -1, 0))).toBe(ErrorCodes.VALIDATION_FAILED);
    expect(code(() => userBudget(policy, 'UTC', -1, 0, 0))).toBe(ErrorCodes.VALIDATION_FAILED);
  });
});

describe('ReleaseClockTable', () => {
  it('builds one clock per distinct offset, the fixed offset first, and knows the days they are on', () => {
    const at = Date.UTC(2026, 5, 1, 11); // 11:00 UTC: -12:00 is on yesterday, +14:00 on tomorrow
    const table = new ReleaseClockTable(policy, at);
    expect(table.indexOf(undefined)).toBe(0);
    expect(table.indexOf('UTC')).toBe(0);
    const berlin = table.indexOf('Europe/Berlin');
    expect(table.indexOf('Europe/Paris')).toBe(berlin);
    expect(table.indexOf('+02:00')).toBe(berlin);
    table.indexOf('Etc/GMT+12');
    table.indexOf('Pacific/Kiritimati');
    expect(table.clocks).toHaveLength(4);
    const today = Math.floor(at / DAY);
    expect(table.days().sort()).toEqual([today - 1, today, today + 1]);
  });
});

describe('withinZonedBudget', () => {
  it('answers withinBudget when every user shares one clock', () => {
    const uins = Uint32Array.from(users(3000));
    const used = Uint32Array.from(uins, (uin) => uin % 4);
    for (const hour of [0.5, 6, 13, 23.9]) {
      const now = Date.UTC(2026, 2, 10) + hour * H;
      const one = withinZonedBudget(uins, used, [releaseClock(policy, now)], new Uint16Array(uins.length));
      expect(one).toEqual(withinBudget(policy, uins, used, now));
    }
  });

  it("judges each user on their own zone's clock", () => {
    const uins = Uint32Array.from(users(3000));
    const used = new Uint32Array(uins.length);
    const now = Date.UTC(2026, 5, 1, 5); // 05:00 UTC: 07:00 in Berlin, 14:00 in Tokyo, 01:00 in New York
    const zones = ['Europe/Berlin', 'Asia/Tokyo', 'America/New_York', undefined];
    const table = new ReleaseClockTable(policy, now);
    const clockAt = Uint16Array.from(uins, (_, i) => table.indexOf(zones[i % 4]));
    const { kept } = withinZonedBudget(uins, used, table.clocks, clockAt);
    const expected = [...uins].filter((uin, i) => userBudget(policy, zones[i % 4], uin, 0, now) > 0);
    expect([...kept]).toEqual(expected);
    // Tokyo's afternoon has at least 2 slots released for everyone, New York's 01:00 almost none.
    const tokyo = [...uins].filter((_, i) => i % 4 === 1);
    const newYork = [...uins].filter((_, i) => i % 4 === 2);
    expect(tokyo.every((uin) => kept.includes(uin))).toBe(true);
    expect(newYork.filter((uin) => kept.includes(uin)).length).toBeLessThan(newYork.length / 4);
  });

  it('refuses a clock index with no clock, and misaligned arrays', () => {
    const uins = Uint32Array.of(1, 2);
    const clocks = [releaseClock(policy, 0)];
    expect(() => withinZonedBudget(uins, [0, 0], clocks, [0, 1])).toThrow(/clock 1/);
    expect(() => withinZonedBudget(uins, [0], clocks, [0, 0])).toThrow(/one each per uin/);
  });
});

describe('with quiet hours', () => {
  it('keeps a slot released inside quiet hours for their end, the same local day', () => {
    // Quiet 00:00-08:00 in Berlin covers the whole first competition window (00-06): its slot is released
    // while nothing may land, and is still there, unused, when the quiet hours end.
    const quiet = { from: '00:00', to: '08:00' };
    const night = Date.UTC(2026, 5, 1, 1); // 03:00 CEST
    const end = quietHoursEnd('Europe/Berlin', quiet, night);
    expect(end).toBe(Date.UTC(2026, 5, 1, 6)); // 08:00 CEST
    for (const uin of users(500)) {
      expect(userBudget(policy, 'Europe/Berlin', uin, 0, end)).toBeGreaterThanOrEqual(1);
      expect(userDayOf(policy, 'Europe/Berlin', end)).toBe(userDayOf(policy, 'Europe/Berlin', night));
    }
  });
});
