/**
 * Per-token rate limiting: a token bucket per key (the token id), refilled
 * continuously at `perSecond` up to `burst`. Pure: the caller passes `now`
 * (its injected clock), nothing here keeps time or runs timers.
 */

export interface RateLimit {
  /** Requests per second sustained; 0 turns limiting off. */
  perSecond: number;
  /** Requests allowed at once after a quiet spell (the bucket's size), >= 1. */
  burst: number;
}

export interface Bucket {
  /** Requests that may still be made now (fractional while refilling). */
  tokens: number;
  /** When `tokens` was computed, clock ms. */
  at: number;
}

export interface Take {
  allowed: boolean;
  /** When refused: how long until one request is allowed, ms (> 0). 0 when allowed. */
  retryAfterMs: number;
}

/** One request against a bucket (a missing bucket is full). Returns the outcome and the bucket after it. */
export function takeFromBucket(bucket: Bucket | undefined, limit: RateLimit, now: number): Take & { bucket: Bucket } {
  if (limit.perSecond <= 0) return { allowed: true, retryAfterMs: 0, bucket: { tokens: limit.burst, at: now } };
  // A clock that steps back refills nothing rather than draining the bucket.
  const elapsedMs = bucket === undefined ? 0 : Math.max(0, now - bucket.at);
  const tokens =
    bucket === undefined ? limit.burst : Math.min(limit.burst, bucket.tokens + (elapsedMs * limit.perSecond) / 1000);
  if (tokens >= 1) return { allowed: true, retryAfterMs: 0, bucket: { tokens: tokens - 1, at: now } };
  return {
    allowed: false,
    retryAfterMs: Math.max(1, Math.ceil(((1 - tokens) * 1000) / limit.perSecond)),
    bucket: { tokens, at: now },
  };
}

/**
 * A bucket per key. Memory stays bounded: when more than `maxKeys` buckets
 * are held, the ones that have refilled completely (equal to a fresh bucket)
 * are dropped.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    readonly limit: RateLimit,
    private readonly maxKeys = 10_000,
  ) {}

  take(key: string, now: number): Take {
    const { allowed, retryAfterMs, bucket } = takeFromBucket(this.buckets.get(key), this.limit, now);
    if (this.limit.perSecond > 0) this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) this.dropFull(now);
    return { allowed, retryAfterMs };
  }

  /** Buckets held (for tests of the bound). */
  get size(): number {
    return this.buckets.size;
  }

  private dropFull(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + (Math.max(0, now - bucket.at) * this.limit.perSecond) / 1000 >= this.limit.burst)
        this.buckets.delete(key);
    }
  }
}
