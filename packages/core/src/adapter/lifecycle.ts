import { ErrorCodes, HeraldError } from '../errors';
import { retry, type RetryOptions } from '../retry/retry';

/** Turns what a backend threw into a HeraldError (HeraldErrors pass through); `op` names the public call. */
export type ErrorTranslator = (error: unknown, op: string) => HeraldError;

export interface AdapterLifecycleOptions {
  /** How errors name the adapter, e.g. 'MySqlTaskStore'. */
  name: string;
  /** The backend's error translation (a Level, mysql2 or kafkajs error into a HeraldError). */
  translate: ErrorTranslator;
  /** What "closed" errors call the adapter. @defaultValue 'store' */
  noun?: string;
  /**
   * With these, the calls an adapter marks `idempotent` ride out a server
   * outage (retriable errors, jittered backoff); without, every call runs once.
   */
  retry?: RetryOptions;
}

/**
 * The open/closed bookkeeping every adapter shares (abstract-level's
 * `_hook` pattern: the public method checks and calls, the adapter only
 * stores). Every call runs through `run` or `idempotent`, which refuse calls
 * after close with STORE_CLOSED, translate the backend's errors, and track
 * the call, so that `close` waits for calls already in flight before it
 * releases the backend. Pure: no I/O, no timers of its own (a retry waits
 * with the injected `sleep`).
 */
export class AdapterLifecycle {
  private closing: Promise<void> | undefined;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly name: string;
  private readonly noun: string;
  private readonly translate: ErrorTranslator;
  private readonly retryOptions: RetryOptions | undefined;

  constructor({ name, translate, noun = 'store', retry: retryOptions }: AdapterLifecycleOptions) {
    this.name = name;
    this.noun = noun;
    this.translate = translate;
    this.retryOptions = retryOptions;
  }

  get closed(): boolean {
    return this.closing !== undefined;
  }

  /** STORE_CLOSED, naming the adapter and the call. */
  closedError(op: string): HeraldError {
    return new HeraldError(ErrorCodes.STORE_CLOSED, `${this.name}.${op}: the ${this.noun} is closed`);
  }

  assertOpen(op: string): void {
    if (this.closed) throw this.closedError(op);
  }

  /** Runs one call once: a call whose reply was lost must not be repeated blindly (e.g. an AUTO_INCREMENT insert). */
  async run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    this.assertOpen(op);
    let call: Promise<T>;
    try {
      call = fn();
    } catch (error) {
      throw this.translate(error, op);
    }
    this.inflight.add(call);
    try {
      return await call;
    } catch (error) {
      throw this.translate(error, op);
    } finally {
      this.inflight.delete(call);
    }
  }

  /**
   * Runs a call that is safe to repeat (a read, an idempotent write, or a
   * write checked against the stored state so that a repeat is refused, not
   * applied twice); with retry options, again while it fails retriable.
   * Each attempt is a `run` of its own, so a close ends the retries with
   * STORE_CLOSED and never waits out a backoff.
   */
  idempotent<T>(op: string, fn: () => Promise<T>): Promise<T> {
    if (this.retryOptions === undefined) return this.run(op, fn);
    return retry(() => this.run(op, fn), this.retryOptions);
  }

  /**
   * Closes once: later calls fail with STORE_CLOSED; waits for the calls in
   * flight, then `release`s the backend. A second close answers the first's promise.
   */
  close(release: () => Promise<void>): Promise<void> {
    return (this.closing ??= (async () => {
      await Promise.allSettled([...this.inflight]);
      try {
        await release();
      } catch (error) {
        throw this.translate(error, 'close');
      }
    })());
  }
}
