import type { UnitBatch } from '@herald/transport';

type BatchKey = Pick<UnitBatch, 'taskId' | 'unitNo' | 'offset'>;

/**
 * The executor's batch confirmations (the landing of the batch's publish and
 * record, its confirmed-batch entry, then its progress report: deliver-batch.ts
 * confirmBatch), one at a
 * time and in the order the batches were written, while the worker writes the
 * next batch. So a batch's durable writes (a LevelDB put, and in production a
 * publish to the reports stream) are off the send path's critical path, yet
 * each batch is reported only after they landed, and a unit's reports reach
 * the scheduler in order (it applies only the one that starts at its
 * checkpoint).
 *
 * At most `depth` confirmations are in flight beside the batch the worker
 * writes: the worker's `enqueue` resolves once the confirmation `depth`
 * places before it settled, so a worker faster than its confirmations waits
 * for them, and what is held is at most `depth` batches' recipients and
 * counts. More than one in flight absorbs a write that is slow now and then
 * (a LevelDB put queued behind the file writes of the thread pool), without
 * the worker waiting for it. A crash loses at most `depth + 1` batches
 * unreported: they come again from their unit's checkpoint and are written,
 * recorded and reported again (same keys).
 *
 * A confirmation that fails is handed to `failed` and the line goes on, as a
 * batch whose writes failed: its unit's later reports are ignored by the
 * scheduler until the batch comes again.
 */
export class ConfirmationLine {
  /** The confirmations handed, newest last: the `depth` newest, and maybe settled ones before them. */
  private readonly handed: { batch: BatchKey; settled: Promise<void>; done: boolean }[] = [];

  /**
   * `beforeWaiting` runs whenever someone is about to wait for a confirmation
   * (the line full and its oldest not settled, `settledFor`, `drained`): what a confirmation itself
   * waits for and that is held back (the executor's record group) is let go
   * then, so no wait can hang on it.
   */
  constructor(
    private readonly failed: (batch: BatchKey, error: unknown) => void,
    private readonly depth = 1,
    private readonly beforeWaiting: () => void = () => undefined,
  ) {
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`depth must be an integer >= 1, not ${depth}`);
  }

  /**
   * Starts `confirm` once the confirmation before it settled (in the order of
   * the calls, whoever awaits what); resolves, without waiting for `confirm`,
   * once at most `depth` confirmations are unsettled.
   */
  enqueue(batch: BatchKey, confirm: () => Promise<void>): Promise<void> {
    const before = this.handed.at(-1)?.settled ?? Promise.resolve();
    const handed = {
      batch,
      settled: before.then(confirm).catch((error: unknown) => this.failed(batch, error)),
      done: false,
    };
    void handed.settled.then(() => (handed.done = true));
    this.handed.push(handed);
    if (this.handed.length <= this.depth) return Promise.resolve();
    const oldest = this.handed.shift()!;
    if (oldest.done) return Promise.resolve();
    this.beforeWaiting();
    return oldest.settled;
  }

  /**
   * Waits for the confirmations in flight of this very batch (the same batch
   * come again soon): its confirmed-batch entry is then read
   * after it was written, and the batch is reported, not delivered again.
   */
  async settledFor(batch: BatchKey): Promise<void> {
    const same = this.handed.filter((handed) => sameBatch(handed.batch, batch));
    if (same.length > 0) this.beforeWaiting();
    await Promise.all(same.map((handed) => handed.settled));
  }

  /** Waits for every confirmation handed (the worker stopping). */
  async drained(): Promise<void> {
    this.beforeWaiting();
    await this.handed.at(-1)?.settled;
  }
}

function sameBatch(a: BatchKey, b: BatchKey): boolean {
  return a.taskId === b.taskId && a.unitNo === b.unitNo && a.offset === b.offset;
}
