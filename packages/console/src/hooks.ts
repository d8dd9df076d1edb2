import { useCallback, useEffect, useRef, useState } from 'react';
import { api, type ApiError } from './api/client';

/**
 * Loads something from the API and reloads it every `intervalMs` (0: once)
 * while the tab is visible. One request at a time: a slow answer delays
 * the next poll instead of piling requests up, so polling stays cheap.
 */
export function usePoll<T>(load: (signal: AbortSignal) => Promise<T>, deps: readonly unknown[], intervalMs = 0) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let stopped = false;
    const run = async () => {
      if (document.visibilityState === 'hidden' && intervalMs > 0) {
        timer = setTimeout(run, intervalMs);
        return;
      }
      try {
        const value = await loadRef.current(controller.signal);
        if (stopped) return;
        setData(value);
        setError(undefined);
      } catch (e) {
        if (stopped || (e as Error).name === 'AbortError') return;
        setError(e as Error);
      } finally {
        if (!stopped) setLoading(false);
      }
      if (!stopped && intervalMs > 0) timer = setTimeout(run, intervalMs);
    };
    setLoading(true);
    void run();
    return () => {
      stopped = true;
      controller.abort();
      clearTimeout(timer);
    };
    // `deps` are the caller's: what the load depends on (the latest `load` is read through a ref).
  }, [...deps, intervalMs, tick]);

  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, loading, reload, setData };
}

/** The current time, refreshed every `everyMs`: for "in 3 min" labels. */
export function useNow(everyMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** The tab's title: operators keep several consoles open. */
export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · Herald`;
  }, [title]);
}

/**
 * A server-side check of what the operator is typing: GETs `path` a moment
 * (300 ms) after it stops changing, dropping the answer to anything typed
 * over since. `path` undefined: nothing to check (the state clears).
 */
export function useTypedCheck<T>(path: string | undefined): { preview?: T; error?: ApiError; checking: boolean } {
  const [state, setState] = useState<{ preview?: T; error?: ApiError; checking: boolean }>({ checking: false });
  useEffect(() => {
    if (path === undefined) {
      setState({ checking: false });
      return;
    }
    const controller = new AbortController();
    setState((s) => ({ ...s, checking: true }));
    const timer = setTimeout(() => {
      api<T>('GET', path, undefined, controller.signal).then(
        (preview) => setState({ preview, checking: false }),
        (error) => {
          if ((error as Error).name !== 'AbortError') setState({ error: error as ApiError, checking: false });
        },
      );
    }, 300);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [path]);
  return state;
}
