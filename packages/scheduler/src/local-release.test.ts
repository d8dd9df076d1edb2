import type { ExecutionUnit, LocalGroup, Task } from '@herald/core/task';
import { heldForQuietHours, isHeld, nextRelease } from './local-release';

/*
 * A local-time task's units wait for their group's release instant, and for
 * the end of the quiet hours an executor met while sending the group
 * (docs/local-time.md, "Held, or queued offline").
 */
const NOW = Date.UTC(2026, 5, 1, 20, 30);
const MORNING = Date.UTC(2026, 5, 2, 6);
const group = (start: number, end: number, releaseAt: number): LocalGroup => ({
  offsetMinutes: 0,
  releaseAt,
  start,
  end,
  skipped: false,
  released: true,
  delivered: 0,
  offline: 0,
});
const taskOf = (groups: LocalGroup[]) => ({ id: 1, report: { localGroups: groups } }) as unknown as Task;
const unitOf = (start: number, end: number) => ({ unitNo: 0, start, end }) as ExecutionUnit;

describe('quiet-hours holds of local-time groups', () => {
  const released = NOW - 60_000;
  const task = taskOf([group(0, 30, released), group(30, 60, released)]);

  it('holds the units of the held group until the end, and no other', () => {
    const groups = heldForQuietHours(task, unitOf(30, 40), MORNING, NOW)!;
    expect(groups.map((g) => g.heldUntil)).toEqual([undefined, MORNING]);
    const held = taskOf(groups);
    expect(isHeld(held, unitOf(40, 50), NOW)).toBe(true);
    expect(isHeld(held, unitOf(0, 10), NOW)).toBe(false);
    expect(nextRelease(held, NOW)).toBe(MORNING);
    expect(isHeld(held, unitOf(40, 50), MORNING)).toBe(false);
    expect(nextRelease(held, MORNING)).toBeUndefined();
  });

  it('keeps the earlier of two ends reported for one group, and replaces an end already passed', () => {
    const earlier = MORNING - 3_600_000;
    const once = taskOf(heldForQuietHours(task, unitOf(30, 40), MORNING, NOW)!);
    expect(heldForQuietHours(once, unitOf(40, 50), earlier, NOW)![1]!.heldUntil).toBe(earlier);
    expect(heldForQuietHours(once, unitOf(40, 50), MORNING + 86_400_000, MORNING + 1)![1]!.heldUntil).toBe(
      MORNING + 86_400_000,
    );
  });

  it('has nothing to hold a task of one instant by', () => {
    expect(heldForQuietHours({ id: 1, report: {} } as unknown as Task, unitOf(0, 10), MORNING, NOW)).toBeUndefined();
  });
});
