/**
 * One delivery (or the decision to deliver) of a task to users, counted
 * against their frequency budget of a local day (`dayOf(policy, sendTime)`,
 * core/frequency). One entry carries a whole batch, as the executor reports it.
 */
export interface FrequencyUse {
  taskId: number;
  /** Local day number (core/frequency `dayOf`), 0 .. 2^32-1. */
  day: number;
  /** Sorted ascending; duplicates count once. */
  uins: Uint32Array;
}

/**
 * Per-user daily broadcast counts, shared by every dispatcher (the frequency
 * filter) and every executor (login delivery checks again). Sharded by uin:
 * one user's counts live in one shard, so a batch read of a sorted uin range
 * touches few shards.
 *
 * Contract, checked by the FrequencyCounter conformance suite
 * (@herald/testing `frequencyCounterConformance`):
 * - `used(sortedUins, day)` answers in one call: a Uint32Array aligned with the
 *   input (counts[i] is uins[i]'s), 0 for users with nothing counted. The
 *   count is the number of distinct tasks consumed for that (uin, day).
 * - `consume(uses)` is idempotent by (uin, day, taskId): consuming the same
 *   triple again, in the same call or any later one, after a restart too,
 *   changes nothing. So replaying the reports stream after a crash, or a
 *   batch reported twice, never counts a user twice for one task.
 *   Concurrent calls from several processes must not lose counts.
 * - Counts survive a close and reopen (a restart) of the same store.
 * - Days are independent: consuming on day d never changes day d +/- 1.
 * - An adapter may forget days older than a retention it documents (a day's
 *   counts matter only that day); `used` on a forgotten day answers 0s.
 * - Bad input (unsorted uins, a negative or fractional day or task id, a uin
 *   array that is not a Uint32Array) is a ValidationError; after `close`,
 *   every call fails with STORE_CLOSED.
 *
 * Not atomic with the budget check: a dispatcher reads `used`, decides, and
 * the delivery is consumed later; two tasks filtered at the same moment may
 * both pass a user with one slot left. docs/frequency.md ("Not atomic")
 * says by how much; login delivery checks offline deliveries again.
 */
export interface FrequencyCounter {
  used(sortedUins: Uint32Array, day: number): Promise<Uint32Array>;
  consume(uses: readonly FrequencyUse[]): Promise<void>;
  close(): Promise<void>;
}
