import { compileFrequencyPolicy, dayOf, userBudget, userDayOf } from '@herald/core/frequency';
import { LevelAttributeIndex, LevelFrequencyCounter } from '@herald/store-level';
import { makeTempDir, type TempDir } from '@herald/testing';
import { slotsLeftAt, usesOf, type FrequencyControl } from './frequency-control';

/*
 * The executors' side of frequency windows on each user's own local day
 * (docs/frequency.md, "Time zones"): deliveries are counted, and logins
 * budgeted, on the day of the user's `tz`, read from the real embedded
 * attribute store.
 */

const policy = compileFrequencyPolicy();
/** 20:00 UTC on 1 June 2026: 05:00 on the 2nd in Tokyo, 16:00 on the 1st in New York. */
const NOW = Date.UTC(2026, 5, 1, 20);
const TODAY = dayOf(policy, NOW);

let dir: TempDir;
let counter: LevelFrequencyCounter;
let index: LevelAttributeIndex;
beforeEach(async () => {
  dir = await makeTempDir('herald-executor-frequency-zones-');
  counter = await LevelFrequencyCounter.open(`${dir.path}/frequency`);
  index = await LevelAttributeIndex.open(`${dir.path}/attributes`);
  await index.putUsers([
    { uin: 1, tz: 'Asia/Tokyo' },
    { uin: 2, tz: 'America/New_York' },
    { uin: 3 },
    { uin: 5, tz: 'Pacific/Kiritimati' },
  ]);
});
afterEach(async () => {
  await counter.close();
  await index.close();
  await dir.remove();
});

describe('usesOf', () => {
  it("counts each user on their own local day, users of one day together and sorted, with the task's id", async () => {
    const control: FrequencyControl = { policy, counter, zones: index };
    const uses = await usesOf(control, 7, Uint32Array.of(1, 2, 3, 4, 5), NOW);
    expect(uses.map((use) => ({ ...use, uins: [...use.uins] })).sort((a, b) => a.day - b.day)).toEqual([
      // New York, no tz, and a user the store does not hold: the UTC day.
      { taskId: 7, day: TODAY, uins: [2, 3, 4] },
      // Tokyo (05:00) and Kiritimati (10:00) are on the 2nd already.
      { taskId: 7, day: TODAY + 1, uins: [1, 5] },
    ]);
  });

  it('puts everyone on the fixed offset without a lookup', async () => {
    const uses = await usesOf({ policy, counter }, 7, Uint32Array.of(1, 2), NOW);
    expect(uses).toEqual([{ taskId: 7, day: TODAY, uins: Uint32Array.of(1, 2) }]);
  });
});

describe('slotsLeftAt', () => {
  it("reads the count of the user's own day and budgets on their zone's clock", async () => {
    const control: FrequencyControl = { policy, counter, zones: index };
    // A use on the UTC day (the 1st) is not Tokyo's day (the 2nd): it does not count for user 1.
    await counter.consume([{ taskId: 1, day: TODAY, uins: Uint32Array.of(1, 2) }]);
    const tokyo = await slotsLeftAt(control, 1, NOW);
    expect(tokyo.day).toBe(userDayOf(policy, 'Asia/Tokyo', NOW));
    expect(tokyo.left).toBe(userBudget(policy, 'Asia/Tokyo', 1, 0, NOW));
    const newYork = await slotsLeftAt(control, 2, NOW);
    expect(newYork).toEqual({ day: TODAY, left: userBudget(policy, 'America/New_York', 2, 1, NOW) });
    // 16:00 in New York: the 00-06, 06-12 and 12-15 windows are closed, so 3 released, 1 used.
    expect(newYork.left).toBeGreaterThanOrEqual(2);
    // 05:00 in Tokyo: at most the first window's slot.
    expect(tokyo.left).toBeLessThanOrEqual(1);
  });
});
