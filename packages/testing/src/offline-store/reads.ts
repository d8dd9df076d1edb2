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

/**
 * The time a case over 10^4-10^5 uins spread over the uin space may take: with rangeBits 8 each
 * uin is a range of its own, and on a slower 2-core host beside other suites such a case took over
 * the default 60 s (2026-11-28).
 */
export const LARGE_CASE_MS = 300_000;
