import AsyncLock from 'async-lock';

/**
 * An in-process mutex per key. LevelDB has no transactions, so each
 * read-modify-write of one record (read it, check fence and state machine,
 * write a batch) runs under that record's lock; LevelDB's own LOCK file
 * guarantees no other process has the database open, so an in-process lock is
 * enough. Operations on different keys run concurrently.
 *
 * The queues are async-lock's (the library audience's FollowerCopies uses too);
 * this class only fixes the options every store wants: no cap on waiting
 * callers (a store call waits its turn, it is never refused for being many)
 * and no timeout.
 */
export class KeyedMutex<K extends string | number> {
  private readonly lock = new AsyncLock({ maxPending: Infinity });

  run<T>(key: K, fn: () => Promise<T>): Promise<T> {
    return this.lock.acquire(String(key), fn);
  }

  /** Whether any key is held or awaited (for tests: a finished call leaves none). */
  get busy(): boolean {
    return this.lock.isBusy();
  }
}
