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
  /**
   * Optional: about how many bytes the store's offline lists take on disk,
   * for the offline-list size gauge (herald_executor_offline_store_bytes). An
   * estimate the adapter can make cheaply (LevelDB's own, which leaves out
   * what is still only in its write-ahead log), never a scan.
   */
  approximateBytes?(): Promise<number>;
  close(): Promise<void>;
}
