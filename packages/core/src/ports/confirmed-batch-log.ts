/** What an executor wrote for one batch of a unit: where the batch ended and its counts. */
export interface ConfirmedBatch {
  /** The batch's end offset in the filtered list (exclusive). */
  to: number;
  delivered: number;
  offline: number;
}

/**
 * The batches an executor host has confirmed (written to the gateway and the
 * offline lists), by task, unit and start offset.
 *
 * Why it exists: a unit runs again from the checkpoint its scheduler last saw,
 * and that checkpoint may lag far behind what the executor already wrote (its
 * reports lost in a socket with a killed process, dropped across a cut-off
 * scheduler, or unread in a scheduler that died). The executor reports such a
 * batch again, with the counts it had, instead of delivering it a second time.
 * A durable log keeps that true across a restart of the executor, so a crash
 * repeats at most the batch that was in hand: the one written but not yet
 * recorded here (docs/recovery.md, "What a crash repeats").
 *
 * Contract, checked by the ConfirmedBatchLog conformance suite:
 * - `get` returns what `record` stored for exactly (taskId, unitNo, offset),
 *   or undefined; recording the same key again replaces it.
 * - `record` resolves only once the record would survive the process being
 *   killed (written to the adapter's log; a machine crash may lose it).
 * - `prune(now)` forgets every record of tasks whose `expiresAt` is at or
 *   before `now` (their units can no longer run) and says how many it dropped.
 */
export interface ConfirmedBatchLog {
  get(taskId: number, unitNo: number, offset: number): Promise<ConfirmedBatch | undefined>;
  record(taskId: number, unitNo: number, offset: number, batch: ConfirmedBatch, expiresAt: number): Promise<void>;
  prune(now: number): Promise<number>;
  close(): Promise<void>;
}
