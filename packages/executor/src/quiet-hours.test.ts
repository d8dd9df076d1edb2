import type { Task } from '@herald/core/task';
import { LevelAttributeIndex } from '@herald/store-level';
import { makeTempDir, newTask, type TempDir } from '@herald/testing';
import { holdsAtLogin, queueInsideQuietHours, quietHoldOf } from './quiet-hours';

/*
 * Quiet hours judged per recipient by the executors (docs/local-time.md,
 * "Quiet hours"): the zones from the real embedded attribute store.
 */

/** 21:00 UTC on 1 June 2026: 23:00 in Berlin (inside 22:00-08:00), 17:00 in New York, 21:00 UTC (outside). */
const EVENING = Date.UTC(2026, 5, 1, 21);
const taskWith = (overrides: Partial<Task>) =>
  ({ ...newTask({ content: { body: 'hi' } }), id: 1, epoch: 1, ...overrides }) as unknown as Task;

let dir: TempDir;
let index: LevelAttributeIndex;
beforeAll(async () => {
  dir = await makeTempDir('herald-executor-quiet-');
  index = await LevelAttributeIndex.open(dir.path);
  await index.putUsers([
    { uin: 1, tz: 'Europe/Berlin' },
    { uin: 2, tz: 'America/New_York' },
    { uin: 3 },
    { uin: 7, tz: 'Europe/Berlin' },
  ]);
});
afterAll(async () => {
  await index.close();
  await dir.remove();
});

describe('queueInsideQuietHours', () => {
  const online = Uint32Array.of(1, 2, 3, 7);
  const offline = Uint32Array.of(4, 5);

  it("moves the online users inside the quiet hours in their zone to the offline ones, with during 'offline'", async () => {
    const task = taskWith({ quietHours: { from: '22:00', to: '08:00', during: 'offline' } });
    const { reached, queued } = await queueInsideQuietHours(task, online, offline, index, EVENING);
    expect([...reached]).toEqual([2, 3]);
    expect([...queued]).toEqual([1, 4, 5, 7]);
  });

  it("judges the users without a tz in the task's default zone", async () => {
    const task = taskWith({
      quietHours: { from: '22:00', to: '08:00', during: 'offline' },
      deliverAt: { localTime: '09:00', windowMs: 3_600_000, missed: 'next_day', defaultTimeZone: 'Asia/Tokyo' },
    });
    // 06:00 in Tokyo: user 3 (no tz) is inside too.
    const { reached } = await queueInsideQuietHours(task, online, offline, index, EVENING);
    expect([...reached]).toEqual([2]);
  });

  it('leaves a task that holds (or has no quiet hours) untouched, and outside them everyone is pushed', async () => {
    for (const task of [taskWith({ quietHours: { from: '22:00', to: '08:00' } }), taskWith({})]) {
      const split = await queueInsideQuietHours(task, online, offline, index, EVENING);
      expect(split).toEqual({ reached: online, queued: offline });
    }
    const offlineMode = taskWith({ quietHours: { from: '22:00', to: '08:00', during: 'offline' } });
    const noon = Date.UTC(2026, 5, 1, 12);
    expect(await queueInsideQuietHours(offlineMode, online, offline, index, noon)).toEqual({
      reached: online,
      queued: offline,
    });
  });
});

describe('holdsAtLogin', () => {
  it("holds only a task whose account holds logins, inside its quiet hours in the user's zone", () => {
    const held = taskWith({ quietHours: { from: '22:00', to: '08:00', atLogin: 'hold' } });
    const delivered = taskWith({ quietHours: { from: '22:00', to: '08:00' } });
    expect(holdsAtLogin(held, 'Europe/Berlin', EVENING)).toBe(true);
    expect(holdsAtLogin(held, 'America/New_York', EVENING)).toBe(false);
    expect(holdsAtLogin(held, undefined, EVENING)).toBe(false); // UTC 21:00
    expect(holdsAtLogin(delivered, 'Europe/Berlin', EVENING)).toBe(false);
  });
});

describe('quietHoldOf', () => {
  /** 08:00 in Berlin (CEST) on 2 June: the end of its quiet hours. */
  const BERLIN_MORNING = Date.UTC(2026, 5, 2, 6);
  const held = taskWith({ quietHours: { from: '22:00', to: '08:00' } });

  it('holds a batch with a recipient inside the quiet hours in their zone until the earliest end', async () => {
    expect(await quietHoldOf(held, Uint32Array.of(1, 7), index, EVENING)).toBe(BERLIN_MORNING);
    expect(await quietHoldOf(held, Uint32Array.of(2, 3, 7), index, EVENING)).toBe(BERLIN_MORNING);
  });

  it('lets a batch go whose recipients are all outside them, or whose task queues offline or has none', async () => {
    expect(await quietHoldOf(held, Uint32Array.of(2, 3), index, EVENING)).toBeUndefined();
    expect(await quietHoldOf(held, Uint32Array.of(1, 7), index, BERLIN_MORNING)).toBeUndefined();
    const offlineMode = taskWith({ quietHours: { from: '22:00', to: '08:00', during: 'offline' } });
    expect(await quietHoldOf(offlineMode, Uint32Array.of(1), index, EVENING)).toBeUndefined();
    expect(await quietHoldOf(taskWith({}), Uint32Array.of(1), index, EVENING)).toBeUndefined();
  });

  it("judges recipients without a tz, or all of them without a lookup, in the task's default zone", async () => {
    const tokyo = taskWith({
      quietHours: { from: '22:00', to: '08:00' },
      deliverAt: { localTime: '09:00', windowMs: 3_600_000, missed: 'next_day', defaultTimeZone: 'Asia/Tokyo' },
    });
    // 06:00 in Tokyo: inside, until 08:00 JST (23:00 UTC). Uin 3 has no tz.
    expect(await quietHoldOf(tokyo, Uint32Array.of(2, 3), index, EVENING)).toBe(Date.UTC(2026, 5, 1, 23));
    expect(await quietHoldOf(tokyo, Uint32Array.of(2), undefined, EVENING)).toBe(Date.UTC(2026, 5, 1, 23));
  });
});
