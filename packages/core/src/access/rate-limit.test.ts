import { RateLimiter, takeFromBucket } from './rate-limit';

describe('takeFromBucket', () => {
  const limit = { perSecond: 2, burst: 3 };

  it('allows a burst, then refuses with the time until one request refills', () => {
    let bucket;
    for (let i = 0; i < 3; i++) {
      const take = takeFromBucket(bucket, limit, 1000);
      expect(take.allowed).toBe(true);
      bucket = take.bucket;
    }
    const refused = takeFromBucket(bucket, limit, 1000);
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: 500 });
    // 250 ms later half a request has refilled: 250 ms to go.
    expect(takeFromBucket(refused.bucket, limit, 1250)).toMatchObject({ allowed: false, retryAfterMs: 250 });
    expect(takeFromBucket(refused.bucket, limit, 1500).allowed).toBe(true);
  });

  it('refills at perSecond up to burst, never beyond', () => {
    const empty = { tokens: 0, at: 0 };
    expect(takeFromBucket(empty, limit, 60_000).bucket.tokens).toBe(2); // full (3), minus this request
  });

  it('treats a clock that steps back as no time passing', () => {
    const take = takeFromBucket({ tokens: 0.5, at: 5000 }, limit, 1000);
    expect(take).toMatchObject({ allowed: false, retryAfterMs: 250 });
  });

  it('allows everything when perSecond is 0 (limiting off)', () => {
    let bucket;
    for (let i = 0; i < 1000; i++) {
      const take = takeFromBucket(bucket, { perSecond: 0, burst: 1 }, 0);
      expect(take.allowed).toBe(true);
      bucket = take.bucket;
    }
  });
});

describe('RateLimiter', () => {
  it('keeps one bucket per key: one key running dry leaves another alone', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 });
    expect(limiter.take('a', 0).allowed).toBe(true);
    expect(limiter.take('a', 0)).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(limiter.take('b', 0).allowed).toBe(true);
    expect(limiter.take('a', 1000).allowed).toBe(true);
  });

  it('drops refilled buckets once it holds more than maxKeys, and keeps the ones still draining', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, 3);
    limiter.take('old1', 0);
    limiter.take('old2', 0);
    limiter.take('busy', 9000);
    limiter.take('busy', 9000);
    limiter.take('new', 10_000); // 4 buckets: old1 and old2 have refilled by now, busy has not
    expect(limiter.size).toBe(2);
    expect(limiter.take('busy', 10_000).allowed).toBe(true);
    expect(limiter.take('busy', 10_000).allowed).toBe(false);
  });
});
