import { HeraldError } from '../errors';
import { TokenBucket } from './token-bucket';

const T0 = 1_700_000_000_000;

describe('TokenBucket', () => {
  // Each row: bucket, then takes at times (ms after T0) with the wait each returns (0: taken).
  it.each([
    [
      'the burst passes at once, the next take waits for its tokens',
      { ratePerSecond: 100, burst: 50 },
      [
        [0, 50, 0],
        [0, 10, 100],
        [99, 10, 1],
        [100, 10, 0],
      ],
    ],
    [
      'refill is proportional to the time passed',
      { ratePerSecond: 1000, burst: 1000 },
      [
        [0, 1000, 0],
        [250, 250, 0],
        [250, 1, 1],
        [500, 250, 0],
      ],
    ],
    [
      'refill stops at the burst',
      { ratePerSecond: 10, burst: 5 },
      [
        [0, 5, 0],
        [60_000, 6, 0],
        [60_000, 1, 200],
      ],
    ],
    [
      'a take above the burst waits for a full bucket, then goes into debt',
      { ratePerSecond: 100, burst: 100 },
      [
        [0, 50, 0],
        [0, 400, 500],
        [500, 400, 0],
        [500, 1, 3010],
        [3510, 1, 0],
      ],
    ],
    [
      'fractional rates round the wait up',
      { ratePerSecond: 3, burst: 1 },
      [
        [0, 1, 0],
        [0, 1, 334],
        [334, 1, 0],
      ],
    ],
    [
      'a take of 0 always passes',
      { ratePerSecond: 1, burst: 1 },
      [
        [0, 1, 0],
        [0, 0, 0],
      ],
    ],
    [
      'time running backwards adds nothing',
      { ratePerSecond: 100, burst: 10 },
      [
        [1000, 10, 0],
        [0, 1, 10],
        [1010, 1, 0],
      ],
    ],
  ] as const)('%s', (_what, options, takes) => {
    const bucket = new TokenBucket(options, T0);
    for (const [at, amount, wait] of takes)
      expect([at, amount, bucket.take(amount, T0 + at)]).toEqual([at, amount, wait]);
  });

  it('averages the rate over many takes: 1,000 takes of 7 at 70/s take 99.9 s', () => {
    const bucket = new TokenBucket({ ratePerSecond: 70, burst: 7 }, T0);
    let now = T0;
    for (let i = 0; i < 1000; i++) {
      for (let wait = bucket.take(7, now); wait > 0; wait = bucket.take(7, now)) now += wait;
    }
    expect(now - T0).toBeGreaterThanOrEqual(99_900);
    expect(now - T0).toBeLessThan(99_900 + 1000);
  });

  it('reports what it holds, negative in debt', () => {
    const bucket = new TokenBucket({ ratePerSecond: 10, burst: 10 }, T0);
    expect(bucket.take(25, T0)).toBe(0);
    expect(bucket.available(T0)).toBe(-15);
    expect(bucket.available(T0 + 2000)).toBe(5);
  });

  it.each([
    [
      'rate 0 (no speed: send unpaced, without a bucket)',
      { ratePerSecond: 0, burst: 1 },
      /rate must be .* above 0 \(got 0\)/,
    ],
    ['a negative rate', { ratePerSecond: -5, burst: 1 }, /rate must be/],
    ['an infinite rate', { ratePerSecond: Infinity, burst: 1 }, /rate must be/],
    ['a NaN rate', { ratePerSecond: NaN, burst: 1 }, /rate must be/],
    ['a burst below 1', { ratePerSecond: 5, burst: 0.5 }, /burst must be/],
  ])('refuses %s with a VALIDATION_FAILED error', (_what, options, message) => {
    const make = () => new TokenBucket(options, T0);
    expect(make).toThrow(HeraldError);
    expect(make).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringMatching(message) }),
    );
  });

  it.each([-1, NaN, Infinity])('refuses a take of %p', (amount) => {
    expect(() => new TokenBucket({ ratePerSecond: 5, burst: 5 }, T0).take(amount, T0)).toThrow(/take must be/);
  });
});
