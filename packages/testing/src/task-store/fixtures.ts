import type { Fence, NewTask, NewUnit, Task, TaskEvent } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';

/** A fixed clock reading: stores must persist `now` exactly as given, never read a clock. */
export const NOW = 1_700_000_000_000;

export function newTask(overrides: Partial<NewTask> = {}): NewTask {
  return {
    accountId: 'acct-1',
    listId: 'list-1',
    content: { body: 'Hello from Herald', title: 'Greeting' },
    contentCrc: 0x1234abcd,
    priority: 'normal',
    sendAt: NOW,
    expiresAt: NOW + 86_400_000,
    listCount: 1000,
    ...overrides,
  };
}

export function fenceOf(task: Pick<Task, 'epoch'>): Fence {
  return { epoch: task.epoch };
}

/** Applies `events` in order with the task's current fence; returns the last stored task. */
export async function drive(store: TaskStore, task: Task, events: readonly TaskEvent[], now = NOW): Promise<Task> {
  let current = task;
  for (const event of events) current = await store.transitionTask(current.id, fenceOf(current), event, {}, now);
  return current;
}

/** CREATED -> SENDING. */
export const TO_SENDING: readonly TaskEvent[] = ['enqueue', 'admit', 'preprocessed', 'dispatched'];

export function units(count: number, size = 100, first = 0): NewUnit[] {
  return Array.from({ length: count }, (_, unitNo) => ({
    unitNo,
    start: first + unitNo * size,
    end: first + (unitNo + 1) * size,
    executorId: `executor-${unitNo % 2}`,
  }));
}

/** A claimed task in SENDING with units in PENDING: the setting of every unit test. */
export async function sendingTaskWithUnits(
  store: TaskStore,
  count = 2,
  size = 100,
): Promise<{ task: Task; fence: Fence }> {
  const created = await store.createTask(newTask(), NOW);
  const claimed = await store.claimTask(created.id, 'scheduler-a', NOW);
  const task = await drive(store, claimed, TO_SENDING);
  await store.putUnits(task.id, fenceOf(task), units(count, size), NOW);
  return { task, fence: fenceOf(task) };
}

/** Runs the promises together and splits the outcomes. */
export async function settle<T>(promises: readonly Promise<T>[]): Promise<{ ok: T[]; failed: unknown[] }> {
  const results = await Promise.allSettled(promises);
  const ok: T[] = [];
  const failed: unknown[] = [];
  for (const r of results) {
    if (r.status === 'fulfilled') ok.push(r.value);
    else failed.push(r.reason);
  }
  return { ok, failed };
}
