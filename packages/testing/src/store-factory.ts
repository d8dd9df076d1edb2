/**
 * What a conformance suite needs from an adapter's test file: a factory that
 * opens a fresh, empty store (its own temp dir, database or key prefix) and a
 * cleanup that removes whatever it created. The suite opens one store per test
 * and closes it before calling cleanup, so tests never share state.
 */
export interface OpenedStore<S> {
  store: S;
  cleanup: () => Promise<void>;
}

export type StoreFactory<S extends { close(): Promise<void> }> = () => Promise<OpenedStore<S>>;

/**
 * Registers beforeEach/afterEach hooks that open a fresh store per test and
 * returns an accessor for the current one.
 */
export function useFreshStore<S extends { close(): Promise<void> }>(open: StoreFactory<S>): () => S {
  let current: OpenedStore<S> | undefined;
  beforeEach(async () => {
    current = await open();
  });
  afterEach(async () => {
    const opened = current;
    current = undefined;
    if (opened === undefined) return;
    try {
      await opened.store.close();
    } finally {
      await opened.cleanup();
    }
  });
  return () => {
    if (current === undefined) throw new Error('conformance: no store is open (used outside a test?)');
    return current.store;
  };
}
