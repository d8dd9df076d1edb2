import { compileFrequencyPolicy, dayOf, userBudget, userDayOf, withinBudget } from '@herald/core/frequency';
import { LevelAttributeIndex, LevelFrequencyCounter } from '@herald/store-level';
import { makeTempDir, spreadUins, type TempDir } from '@herald/testing';
import { frequencyFilter } from './frequency';

/*
 * The frequency link with users in their own zones (docs/frequency.md, "Time
 * zones"), on the real embedded stores: the counts in a LevelFrequencyCounter,
 * the zones in a LevelAttributeIndex's `tz` bitsets.
 */

const policy = compileFrequencyPolicy();
const context = { taskId: 9, accountId: 'acme', contentCrc: 0 };
/** 23:30 UTC on Saturday 24 October 2026: 01:30 Sunday in Berlin (CEST), 19:30 Saturday in New York, 08:30 Sunday in Tokyo. */
const NOW = Date.UTC(2026, 9, 24, 23, 30);
const ZONES = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', '+05:30', undefined] as const;

let dir: TempDir;
let counter: LevelFrequencyCounter;
let index: LevelAttributeIndex;
beforeEach(async () => {
  dir = await makeTempDir('herald-frequency-zones-');
  counter = await LevelFrequencyCounter.open(`${dir.path}/frequency`);
  index = await LevelAttributeIndex.open(`${dir.path}/attributes`);
});
afterEach(async () => {
  await counter.close();
  await index.close();
  await dir.remove();
});

const zoneOf = (i: number) => ZONES[i % ZONES.length];

async function filterAt(users: Uint32Array, withIndex: boolean, readChunk?: number): Promise<number[]> {
  const filter = frequencyFilter({
    policy,
    counter,
    clock: { now: () => NOW },
    ...(withIndex ? { index } : {}),
    ...(readChunk === undefined ? {} : { readChunk }),
  });
  return [...(await filter.apply(users.slice(), context))];
}

describe('frequencyFilter with users in their own zones', () => {
  it("judges each user on their own local day: their day's count and their zone's released slots", async () => {
    const users = spreadUins(5, 3000);
    await index.putUsers([...users].flatMap((uin, i) => (zoneOf(i) === undefined ? [] : [{ uin, tz: zoneOf(i)! }])));
    // Each user received (i % 3) broadcasts on their own local day, and one more on the UTC day, which only
    // counts for the users whose local day it is (New York's and the ones without a zone: Saturday).
    const usedOwnDay = (i: number) => i % 3;
    for (let taskId = 1; taskId <= 2; taskId++) {
      const byDay = new Map<number, number[]>();
      users.forEach((uin, i) => {
        if (usedOwnDay(i) < taskId) return;
        const day = userDayOf(policy, zoneOf(i), NOW);
        byDay.set(day, [...(byDay.get(day) ?? []), uin]);
      });
      await counter.consume([...byDay].map(([day, uins]) => ({ taskId, day, uins: Uint32Array.from(uins) })));
    }
    await counter.consume([{ taskId: 3, day: dayOf(policy, NOW), uins: users }]);
    const saturday = (i: number) => userDayOf(policy, zoneOf(i), NOW) === dayOf(policy, NOW);
    const expected = [...users].filter(
      (uin, i) => userBudget(policy, zoneOf(i), uin, usedOwnDay(i) + (saturday(i) ? 1 : 0), NOW) > 0,
    );
    // Tokyo's users have 1 slot released (08:30), Berlin's almost none (01:30), New York's 4 (19:30): all three kinds present.
    expect(expected.length).toBeGreaterThan(300);
    expect(await filterAt(users, true)).toEqual(expected);
    // Small slices: each slice reads once per local day it holds, and the answer is the same.
    expect(await filterAt(users, true, 97)).toEqual(expected);
    // Judged on the fixed offset instead, the answer differs: the zones are what the test checks.
    const fixed = withinBudget(policy, users, await counter.used(users, dayOf(policy, NOW)), NOW).kept;
    expect([...fixed]).not.toEqual(expected);
    expect(await filterAt(users, false)).toEqual([...fixed]);
  });

  it('judges users without a tz on the policy offset when no user has one', async () => {
    const users = spreadUins(11, 500);
    const eastern = compileFrequencyPolicy({ utcOffsetMinutes: 480 });
    await counter.consume([{ taskId: 1, day: dayOf(eastern, NOW), uins: users }]);
    const filter = frequencyFilter({ policy: eastern, counter, index, clock: { now: () => NOW } });
    const kept = await filter.apply(users.slice(), context);
    expect([...kept]).toEqual([
      ...withinBudget(eastern, users, await counter.used(users, dayOf(eastern, NOW)), NOW).kept,
    ]);
  });
});
