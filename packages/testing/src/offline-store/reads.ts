import type { OfflineStore } from '@herald/core/ports';

/** Every uin `scanTask` yields for the task, in order. */
export async function scanAll(store: OfflineStore, taskId: number): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of store.scanTask(taskId)) out.push(...chunk);
  return out;
}

/** The tasks `pending` answers for the user, in its order. */
export async function taskIdsOf(store: OfflineStore, uin: number): Promise<number[]> {
  return (await store.pending(uin)).map((e) => e.taskId);
}
