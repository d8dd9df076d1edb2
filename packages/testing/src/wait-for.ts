/**
 * Polling with a deadline: what tests use instead of sleeping. The condition
 * is checked at once and then every `intervalMs` until it holds or
 * `timeoutMs` has passed; on timeout the error names what was awaited and
 * carries the last error the condition threw, if any.
 */

export interface WaitForOptions {
  /**
   * Give up after this long. @defaultValue 20000: long enough for a CI machine whose two cores
   * are busy with other suites (5 s timed out after only 2 checks there); a condition that holds
   * returns at once, so only a failing wait pays it.
   */
  timeoutMs?: number;
  /** Pause between checks. @defaultValue 10 */
  intervalMs?: number;
  /** What is being awaited, for the timeout error. @defaultValue 'condition' */
  message?: string;
}

/** Thrown when a `waitFor` condition did not hold in time. A test-tooling error, never raised by product code. */
export class WaitForTimeoutError extends Error {
  readonly timeoutMs: number;
  constructor(message: string, timeoutMs: number, attempts: number, cause: unknown) {
    super(
      `waitFor: timed out after ${timeoutMs} ms (${attempts} checks) waiting for: ${message}`,
      cause === undefined ? undefined : { cause },
    );
    this.name = 'WaitForTimeoutError';
    this.timeoutMs = timeoutMs;
  }
}

export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 20_000, intervalMs = 10, message = 'condition' }: WaitForOptions = {},
): Promise<void> {
  if (!(timeoutMs >= 0) || !(intervalMs >= 0)) {
    throw new RangeError(`waitFor: timeoutMs and intervalMs must be >= 0 (got ${timeoutMs}, ${intervalMs})`);
  }
  const deadline = Date.now() + timeoutMs;
  let attempts = 0;
  let lastError: unknown;
  for (;;) {
    attempts++;
    try {
      if (await condition()) return;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitForTimeoutError(message, timeoutMs, attempts, lastError);
    await new Promise<void>((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}
