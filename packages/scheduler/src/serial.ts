/**
 * Runs async jobs one after another. The scheduler handles every message and
 * timer tick through one of these, so two writes for one task never race and
 * the in-memory view always matches the store.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();
  private queued = 0;

  run<T>(job: () => Promise<T>): Promise<T> {
    this.queued++;
    const result = this.tail.then(job);
    this.tail = result.then(
      () => void this.queued--,
      () => void this.queued--,
    );
    return result;
  }

  /** Jobs queued and not finished, the running one included. */
  get pending(): number {
    return this.queued;
  }

  /** Resolves when every job queued so far has finished. */
  idle(): Promise<void> {
    return this.tail;
  }
}
