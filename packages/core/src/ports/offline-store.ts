export interface OfflineEntry {
  taskId: number;
  expiresAt: number;
}

/** Options of one append. */
export interface OfflineAppendOptions {
  /**
   * The task's collapse scope (core task `collapseScopeOf`: account and
   * collapse key). Entries of tasks in one scope supersede each other: a user
   * keeps only the entry of the newest (highest id) task. A task's appends
   * always carry the same scope.
   */
  collapseScope?: string;
  /**
   * Which part of the task the batch belongs to: a local-time task's group
   * (its index in the task's `report.localGroups`, 0..65535). Groups
   * interleave in uin order, so an adapter that keeps a task's records per
   * uin span keeps each group's apart, and one group's append never rewrites
   * another's. A layout hint only: it changes no answer (`pending`,
   * `scanTask`, collapse and purge see the task whole, and a replay of a
   * batch under another group or none still changes nothing), and an
   * adapter may ignore it. Absent: the task is not split.
   */
  group?: number;
}

/** What one `purgeExpired` call removed. */
export interface OfflinePurge {
  /** (user, task) entries removed, delivered ones not yet reclaimed included. */
  entries: number;
  /** Stored records and acknowledgements removed (what the call's bound counts). */
  records: number;
  /** True when no expired task is left to purge at `now`. */
  done: boolean;
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
 * - Collapse scopes: appending task T with a scope removes the entries of
 *   older tasks of that scope for T's users, and an append of an older task
 *   leaves out the users a newer task of its scope already has (delivered or
 *   not): `pending` never lists two tasks of one scope, and it lists the
 *   newest the user was appended to, in whatever order the appends came.
 * - `purgeExpired(now, maxRecords)` removes every trace of tasks whose
 *   `expiresAt <= now`, at most about `maxRecords` records a call (a range's
 *   records go together), so a sweep can pace itself; after it says `done`,
 *   neither `pending` nor `scanTask` shows those tasks.
 */
export interface OfflineStore {
  append(taskId: number, expiresAt: number, sortedUins: Uint32Array, options?: OfflineAppendOptions): Promise<void>;
  pending(uin: number): Promise<OfflineEntry[]>;
  acknowledge(uin: number, taskIds: readonly number[]): Promise<void>;
  scanTask(taskId: number): AsyncIterable<Uint32Array>;
  purgeExpired(now: number, maxRecords: number): Promise<OfflinePurge>;
  /**
   * Optional: about how many bytes the store's offline lists take on disk,
   * for the offline-list size gauge (herald_executor_offline_store_bytes). An
   * estimate the adapter can make cheaply (LevelDB's own, which leaves out
   * what is still only in its write-ahead log), never a scan.
   */
  approximateBytes?(): Promise<number>;
  close(): Promise<void>;
}
