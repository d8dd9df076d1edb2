import type { Clock, TaskStore } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { LRUCache } from 'lru-cache';

/**
 * How long a task's share is trusted before the units are read again: units
 * move between executors (rebalancing, an executor lost), and an executor
 * that took over another's units must speed up within seconds.
 */
export const SPEED_SHARE_REFRESH_MS = 5_000;

/** Tasks whose share is kept; past it the oldest is forgotten (and read again when seen). */
const SHARE_MEMORY = 65_536;

/**
 * The pacing speed of one executor (docs/scheduling.md "Pacing"): the task's
 * own speed (Task.speed, recipients/s for the whole task) times the part of
 * the task's recipients whose units this executor holds. A task split over
 * several executors is so sent at its speed in all, each executor pacing its
 * own share with its own token bucket; one that holds every unit paces at the
 * whole speed. A task without a speed is not paced (undefined): it goes as
 * fast as the hosts allow.
 *
 * The share counts recipients, not units (the last unit of a host's range is
 * shorter), and it is read from the task store's units at most every
 * SPEED_SHARE_REFRESH_MS per task. While the units are not readable, or name
 * no unit of this executor (a batch seen before its unit was stored), the
 * executor paces at the whole speed: never faster than the task asked for.
 */
export function speedShareOf(
  store: Pick<TaskStore, 'listUnits'>,
  executorId: string,
  clock: Clock,
): (task: Task) => Promise<number | undefined> {
  const shares = new LRUCache<number, { fraction: Promise<number>; readAt: number }>({ max: SHARE_MEMORY });
  async function fractionOf(taskId: number): Promise<number> {
    const units = await store.listUnits(taskId);
    let mine = 0;
    let all = 0;
    for (const u of units) {
      all += u.end - u.start;
      if (u.executorId === executorId) mine += u.end - u.start;
    }
    return mine === 0 || all === 0 ? 1 : mine / all;
  }
  return async (task) => {
    if (task.speed === null || task.speed === undefined) return undefined;
    const now = clock.now();
    let held = shares.get(task.id);
    if (held === undefined || now - held.readAt >= SPEED_SHARE_REFRESH_MS) {
      held = { fraction: fractionOf(task.id).catch(() => 1), readAt: now };
      shares.set(task.id, held);
    }
    return task.speed * (await held.fraction);
  };
}
