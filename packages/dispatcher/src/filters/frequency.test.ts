import { budget, compileFrequencyPolicy, dayOf, releasedSlots, slotReleaseTimes } from '@herald/core/frequency';
import type { FrequencyCounter } from '@herald/core/ports';
import { LevelFrequencyCounter } from '@herald/store-level';
import { makeTempDir, spreadUins, type TempDir } from '@herald/testing';
import { frequencyFilter } from './frequency';

const MIN = 60_000;
const H = 60 * MIN;
/** 2024-03-10 00:00 UTC: local midnight of day D under the default policy (offset 0). */
const MIDNIGHT = Date.UTC(2024, 2, 10);
const policy = compileFrequencyPolicy();
const D = dayOf(policy, MIDNIGHT);
const context = { taskId: 1, accountId: 'acme', contentCrc: 0 };

/** An injected clock the test moves by hand. */
const clock = {
  at: MIDNIGHT,
  now() {
    return this.at;
  },
};

let dir: TempDir;
let counter: LevelFrequencyCounter;
beforeEach(async () => {
  dir = await makeTempDir('herald-frequency-filter-');
  counter = await LevelFrequencyCounter.open(dir.path);
});
afterEach(async () => {
  await counter.close();
  await dir.remove();
});

/** The filter applied to a copy of `users` at time `at` (it compacts its input in place). */
async function filterAt(at: number, users: Uint32Array, readChunk?: number): Promise<Uint32Array> {
  clock.at = at;
  return (
    await frequencyFilter({ policy, counter, clock, ...(readChunk === undefined ? {} : { readChunk }) }).apply(
      users.slice(),
      context,
    )
  ).slice();
}

/** What an executor does once it delivers: counts the task for these users on the day of `at`. */
const consume = (taskId: number, at: number, uins: Uint32Array) =>
  counter.consume([{ taskId, day: dayOf(policy, at), uins }]);

describe('frequencyFilter', () => {
  it('is the over_frequency link', () => {
    const filter = frequencyFilter({ policy, counter });
    expect(filter.name).toBe('frequency');
    expect(filter.reason).toBe('over_frequency');
  });

  it("keeps exactly the users with a released, unused slot at the clock's time, counting that day only", async () => {
    const users = spreadUins(1, 2000);
    const usedOf = (i: number) => i % 4; // 0..3 tasks today
    for (let taskId = 1; taskId <= 3; taskId++)
      await consume(
        taskId,
        MIDNIGHT + H,
        users.filter((_, i) => usedOf(i) >= taskId),
      );
    // Yesterday everybody got six: it does not count today.
    for (let taskId = 11; taskId <= 16; taskId++) await consume(taskId, MIDNIGHT - H, users);

    const at = MIDNIGHT + 13 * H + 30 * MIN; // 13:30: two slots released for everyone, the third for some
    const kept = await filterAt(at, users);
    const expected = users.filter((uin, i) => budget(policy, uin, usedOf(i), at) > 0);
    expect([...kept]).toEqual([...expected]);

    const keptSet = new Set(kept);
    const byUsed = (n: number) => users.filter((_, i) => usedOf(i) === n);
    expect(byUsed(0).every((u) => keptSet.has(u))).toBe(true);
    expect(byUsed(1).every((u) => keptSet.has(u))).toBe(true);
    expect(byUsed(3).some((u) => keptSet.has(u))).toBe(false);
    // Two used: kept only where the 12-15 slot is released by 13:30, about half of them.
    const twoKept = byUsed(2).filter((u) => keptSet.has(u)).length;
    expect(twoKept).toBeGreaterThan(byUsed(2).length * 0.35);
    expect(twoKept).toBeLessThan(byUsed(2).length * 0.65);
  });

  it('gives the same answer read in small chunks, one counter read per chunk', async () => {
    const users = spreadUins(2, 500);
    await consume(
      1,
      MIDNIGHT + H,
      users.filter((_, i) => i % 2 === 0),
    );
    const at = MIDNIGHT + 7 * H;
    const whole = await filterAt(at, users);
    let reads = 0;
    const counting: FrequencyCounter = {
      used: (u, d) => (reads++, counter.used(u, d)),
      consume: (u) => counter.consume(u),
      close: async () => {},
    };
    clock.at = at;
    const chunked = await frequencyFilter({ policy, counter: counting, clock, readChunk: 7 }).apply(
      users.slice(),
      context,
    );
    expect([...chunked]).toEqual([...whole]);
    expect(reads).toBe(Math.ceil(users.length / 7));
    expect(whole.length).toBeGreaterThan(0);
    expect(whole.length).toBeLessThan(users.length);
  });

  it('handles an empty audience', async () => {
    expect((await filterAt(MIDNIGHT + 20 * H, new Uint32Array(0))).length).toBe(0);
  });

  /*
   * The seed's case: at 23:45 an operator creates a task for 00:00 tomorrow
   * (the earliest allowed, 15 min ahead), hoping to take users' whole
   * next-day budget before anyone else. The scheduler admits it at its send
   * time, so it is filtered at 00:00 against the new day, where it may take
   * only slots already released. Then the day goes on, one task every 15
   * minutes, each delivered (consumed) before the next.
   */
  it("the seed's 23:45 task for 00:00 tomorrow takes only the first window's released slots, and a whole day of tasks never outruns the releases", async () => {
    const users = spreadUins(3, 2000);
    // Today (day D) everyone already got six.
    for (let taskId = 1; taskId <= 6; taskId++) await consume(taskId, MIDNIGHT + taskId * H, users);
    expect((await filterAt(MIDNIGHT + 23 * H + 45 * MIN, users)).length).toBe(0); // nothing left today

    const tomorrow = MIDNIGHT + 24 * H;
    const atMidnight = await filterAt(tomorrow, users);
    // Only users whose first slot of D+1 is released at 00:00:00.000 exactly: practically nobody.
    expect([...atMidnight]).toEqual([...users.filter((u) => slotReleaseTimes(policy, u, D + 1)[0]! <= tomorrow)]);
    expect(atMidnight.length).toBeLessThan(users.length * 0.01);
    await consume(100, tomorrow, atMidnight);

    const got = new Map<number, number>([...users].map((u) => [u, 0]));
    for (const u of atMidnight) got.set(u, 1);
    let taskId = 101;
    for (let at = tomorrow + 15 * MIN; at < tomorrow + 24 * H; at += 15 * MIN, taskId++) {
      const kept = await filterAt(at, users);
      await consume(taskId, at, kept);
      for (const u of kept) got.set(u, got.get(u)! + 1);
      // No task took a slot before its release: what each user got so far is within what is released.
      expect(users.filter((u) => got.get(u)! > releasedSlots(policy, u, at)).length).toBe(0);
      if (at === tomorrow + 6 * H - 15 * MIN) {
        // The first competition window (00-06) ends: one slot each, however early a task came.
        expect(Math.max(...got.values())).toBe(1);
        expect([...got.values()].filter((n) => n === 1).length).toBeGreaterThan(users.length * 0.9);
      }
    }
    // At most six each; a slot released after 23:45 found no task left that day.
    expect(Math.max(...got.values())).toBe(6);
    expect(Math.min(...got.values())).toBeGreaterThanOrEqual(5);

    // The day after, counts start again from that day's releases.
    expect((await filterAt(tomorrow + 24 * H + 7 * H, users)).length).toBe(users.length);
  });
});
