export interface OfflineEntry {
  taskId: number;
  expiresAt: number;
}

/**
 * Per-user offline lists: broadcasts waiting for a user's next login.
 *
 * Contract, checked by the OfflineStore conformance suite:
 * - `append` takes one task's offline recipients as a sorted batch, so one
 *   write carries many users; appending the same (task, uins) again changes
 *   nothing (a replayed batch after a crash).
 * - `pending(uin)` returns the user's entries in task order (oldest first),
 *   without the acknowledged ones.
 * - `acknowledge(uin, taskIds)` removes entries from that user's list; it is
 *   called only after the delivery (or the decision to drop) is final.
 * - `scanTask(taskId)` yields every uin still pending for the task, in
 *   ascending order: reconciliation and cross-site recovery read it.
 */
export interface OfflineStore {
  append(taskId: number, expiresAt: number, sortedUins: Uint32Array): Promise<void>;
  pending(uin: number): Promise<OfflineEntry[]>;
  acknowledge(uin: number, taskIds: readonly number[]): Promise<void>;
  scanTask(taskId: number): AsyncIterable<Uint32Array>;
  close(): Promise<void>;
}
