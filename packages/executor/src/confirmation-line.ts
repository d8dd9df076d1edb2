import type { UnitBatch } from '@herald/transport';

type BatchKey = Pick<UnitBatch, 'taskId' | 'unitNo' | 'offset'>;

/**
 * The executor's batch confirmations (the batch's record, its confirmed-batch
 * entry, then its progress report: deliver-batch.ts confirmBatch), one at a
 * time and in the order the batches were written, while the worker writes the
 * next batch. So a batch's durable writes (a LevelDB put, and in production a
 * publish to the reports stream) are off the send path's critical path, yet
 * each batch is reported only after they landed, and a unit's reports reach
 * the scheduler in order (it applies only the one that starts at its
 * checkpoint).
 *
 * At most one confirmation is in flight beside the batch the worker writes:
 * `enqueue` waits for the one before to settle before starting the next, so a
 * worker faster than its confirmations waits for them (what is held is one
 * batch's recipients and counts, never a queue). A crash loses at most those
 * two batches unreported: both come again from their unit's checkpoint and
 * are written, recorded and reported again (same keys).
 *
 * A confirmation that fails is handed to `failed` and the line goes on, as a
 * batch whose writes failed: its unit's later reports are ignored by the
 * scheduler until the batch comes again.
 */
export class ConfirmationLine {
  private last: { batch: BatchKey; settled: Promise<void> } | undefined;

  constructor(private readonly failed: (batch: BatchKey, error: unknown) => void) {}

  /**
   * Starts `confirm` once the confirmation before it settled (in the order of
   * the calls, whoever awaits what); resolves when that one settled, without
   * waiting for `confirm`.
   */
  enqueue(batch: BatchKey, confirm: () => Promise<void>): Promise<void> {
    const before = this.last?.settled ?? Promise.resolve();
    const settled = before.then(confirm).catch((error: unknown) => this.failed(batch, error));
    this.last = { batch, settled };
    return before;
  }

  /**
   * Waits for the confirmation in flight when it is this very batch's (the
   * same batch come again at once): its confirmed-batch entry is then read
   * after it was written, and the batch is reported, not delivered again.
   */
  async settledFor(batch: BatchKey): Promise<void> {
    const last = this.last;
    if (last !== undefined && sameBatch(last.batch, batch)) await last.settled;
  }

  /** Waits for every confirmation started (the worker stopping). */
  async drained(): Promise<void> {
    await this.last?.settled;
  }
}

function sameBatch(a: BatchKey, b: BatchKey): boolean {
  return a.taskId === b.taskId && a.unitNo === b.unitNo && a.offset === b.offset;
}
