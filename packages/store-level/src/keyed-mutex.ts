/**
 * An in-process mutex per key. LevelDB has no transactions, so each
 * read-modify-write of one task (read the record, check fence and state
 * machine, write a batch) runs under that task's lock; LevelDB's own LOCK
 * file guarantees no other process has the database open, so an in-process
 * lock is enough. Operations on different keys run concurrently.
 *
 * Each key maps to the tail of a promise chain; a caller waits for the
 * previous tail, runs, and releases. The entry is deleted when the last
 * waiter finishes, so the map holds only keys in use.
 */
export class KeyedMutex<K> {
  private readonly tails = new Map<K, Promise<void>>();

  async run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const done = new Promise<void>((resolve) => (release = resolve));
    // The chain never rejects: `done` only ever resolves.
    const tail = previous.then(() => done);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Keys currently locked or awaited (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
