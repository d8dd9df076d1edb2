import { isHeraldError } from '../errors';

export interface RetryOptions {
  /** First wait, ms. Default 50. */
  baseDelayMs?: number;
  /** Longest single wait, ms. Default 2000. */
  maxDelayMs?: number;
  /** Give up after this long in total, ms. Default 60000. */
  deadlineMs?: number;
  /** The clock and the wait: injected, so tests pass their own timings. */
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  /** Jitter source in [0, 1). Default Math.random. */
  random?: () => number;
  /** Called before each wait (for logs and metrics). */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
}

/**
 * The one retry helper: runs `operation` again while it fails with a
 * HeraldError marked `retriable`, waiting a jittered exponential backoff
 * ("full jitter": a random wait up to base * 2^attempt, capped), until the
 * deadline. Anything not retriable, or the last error at the deadline, is
 * thrown as it is. Callers branch on `retriable`, never on message text.
 */
export async function retry<T>(operation: () => Promise<T>, options: RetryOptions): Promise<T> {
  const base = options.baseDelayMs ?? 50;
  const cap = options.maxDelayMs ?? 2000;
  const deadline = options.now() + (options.deadlineMs ?? 60_000);
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; attempt++) {
    try {
      return await operation();
    } catch (error) {
      if (!isHeraldError(error) || !error.retriable) throw error;
      const delay = Math.floor(random() * Math.min(cap, base * 2 ** Math.min(attempt, 30)));
      if (options.now() + delay > deadline) throw error;
      options.onRetry?.(error, attempt + 1, delay);
      await options.sleep(delay);
    }
  }
}
