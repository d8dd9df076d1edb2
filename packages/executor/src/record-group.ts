import type { DeliveryRecord } from '@herald/core/fate';
import type { DeliveryRecordLog } from '@herald/core/ports';

/**
 * The delivery records of a few consecutive batches, written as one
 * (`DeliveryRecordLog.recordBatches`): one trip to LevelDB's thread and one
 * log write per group, where a write per batch cost the send path a thread
 * hand-over and its wake-ups every batch (docs/delivery.md "Confirming a
 * batch").
 *
 * `add` keeps a batch's record and answers when it landed; it never writes.
 * The group is written by `writeIfFull` once it holds `size` records (the
 * executor calls it while the next batch's own writes are under way), by
 * `flush` (the executor calls it before it waits for a confirmation), by
 * `flushSoon` at the end of the event loop's turn (the executor calls it when
 * no batch waits), or `maxHoldMs` after its first record came, whichever is
 * first: so a record is held at most that long, and never while its batch's
 * confirmation is being waited for.
 *
 * Why the executor chooses the moment: handing a write to the thread pool
 * holds the calling thread for as long as waking a pool thread takes, which
 * on a loaded machine is up to milliseconds (bench/RESULTS.md, "Where the
 * send path waited for the delivery records"). Handed over while the worker
 * waits for its own batch's writes, that hold costs the send path nothing.
 *
 * Nothing reported is lost by a crash: a batch is reported only after its
 * group landed. A crash loses the records of the batches of the group not
 * yet written, at most `size`, none of them reported; they come again from
 * their checkpoints and are recorded again (same keys).
 */
export class RecordGroup {
  private pending: { record: DeliveryRecord; landed: Deferred }[] = [];
  private holdTimer: ReturnType<typeof setTimeout> | undefined;
  private soon: ReturnType<typeof setImmediate> | undefined;

  constructor(
    private readonly log: Pick<DeliveryRecordLog, 'recordBatches'>,
    private readonly size: number,
    private readonly maxHoldMs: number,
  ) {
    if (!Number.isInteger(size) || size < 1) throw new RangeError(`size must be an integer >= 1, not ${size}`);
    if (!(maxHoldMs >= 0)) throw new RangeError(`maxHoldMs must be >= 0, not ${maxHoldMs}`);
  }

  /** Keeps `record` for the group's write (not written yet); resolves once it landed, rejects if the write failed. */
  add(record: DeliveryRecord): Promise<void> {
    const landed = deferred();
    this.pending.push({ record, landed });
    // Unref'd: an executor with nothing else to do has flushed already (no batch waiting).
    this.holdTimer ??= setTimeout(() => this.flush(), this.maxHoldMs).unref();
    return landed.promise;
  }

  /** Writes the group if it holds `size` records; keeps fewer. */
  writeIfFull(): void {
    if (this.pending.length >= this.size) this.flush();
  }

  /** Writes the records kept by the end of this turn of the event loop (after the I/O callbacks due now). */
  flushSoon(): void {
    if (this.pending.length === 0) return;
    this.soon ??= setImmediate(() => this.flush());
  }

  /** Writes the records kept so far, as one write; nothing when there are none. */
  flush(): void {
    clearTimeout(this.holdTimer);
    this.holdTimer = undefined;
    clearImmediate(this.soon);
    this.soon = undefined;
    if (this.pending.length === 0) return;
    const group = this.pending;
    this.pending = [];
    this.log.recordBatches(group.map((kept) => kept.record)).then(
      () => group.forEach((kept) => kept.landed.resolve()),
      (error: unknown) => group.forEach((kept) => kept.landed.reject(error)),
    );
  }
}

interface Deferred {
  promise: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  // Awaited by the batch's confirmation, maybe later than a failure: never an unhandled rejection.
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}
