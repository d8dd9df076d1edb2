/**
 * Runs async jobs one after another. The scheduler handles every message and
 * timer tick through one of these, so two writes for one task never race and
 * the in-memory view always matches the store.
 */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  run<T>(job: () => Promise<T>): Promise<T> {
    const result = this.tail.then(job);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }

  /** Resolves when every job queued so far has finished. */
  idle(): Promise<void> {
    return this.tail;
  }
}
