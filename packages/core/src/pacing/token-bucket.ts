import { ValidationError } from '../errors';

/**
 * A token bucket: what paces a sender to a task's speed (docs/scheduling.md,
 * "Pacing"). Tokens are recipients. The bucket fills at
 * `ratePerSecond` up to `burst`; a take of n tokens passes when the bucket
 * holds n, or, for n above the burst, when it is full: it then goes into
 * debt, so a batch larger than the burst still goes out whole and the next
 * take waits the debt off. Over any long run the takes average the rate.
 *
 * Pure: every call is given the time (epoch ms, from the caller's injected
 * clock); the bucket never reads a clock or sets a timer. Time that runs
 * backwards adds nothing.
 */
export interface TokenBucketOptions {
  /** Tokens added per second; finite and above 0 (no speed means no bucket: the caller sends unpaced). */
  ratePerSecond: number;
  /** Tokens the bucket holds at most, and starts with; finite, at least 1. */
  burst: number;
}

export class TokenBucket {
  readonly ratePerSecond: number;
  readonly burst: number;
  private tokens: number;
  private at: number;

  constructor({ ratePerSecond, burst }: TokenBucketOptions, now: number) {
    if (!(Number.isFinite(ratePerSecond) && ratePerSecond > 0)) {
      throw new ValidationError(
        `token bucket rate must be a finite number of tokens per second above 0 (got ${ratePerSecond}); an unpaced sender has no bucket`,
        { ratePerSecond },
      );
    }
    if (!(Number.isFinite(burst) && burst >= 1))
      throw new ValidationError(`token bucket burst must be a finite number, at least 1 (got ${burst})`, { burst });
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.tokens = burst;
    this.at = now;
  }

  /** Tokens held at `now` (negative while in debt). */
  available(now: number): number {
    this.refill(now);
    return this.tokens;
  }

  /**
   * Takes `amount` tokens when they are there and returns 0; else takes
   * nothing and returns the milliseconds to wait before they will be (at
   * least 1), for the caller to sleep on its own timer and ask again.
   */
  take(amount: number, now: number): number {
    if (!(Number.isFinite(amount) && amount >= 0))
      throw new ValidationError(`token bucket take must be a finite number of tokens, at least 0 (got ${amount})`, {
        amount,
      });
    this.refill(now);
    const needed = Math.min(amount, this.burst);
    if (this.tokens >= needed) {
      this.tokens -= amount;
      return 0;
    }
    // Less a hair, so that float noise (9.9 tokens short of 10 by 0.1000000000000009) does not add a millisecond.
    return Math.max(1, Math.ceil(((needed - this.tokens) * 1000) / this.ratePerSecond - 1e-9));
  }

  private refill(now: number): void {
    if (now <= this.at) return;
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) * this.ratePerSecond) / 1000);
    this.at = now;
  }
}
