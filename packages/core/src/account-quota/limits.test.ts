import { ValidationError } from '../errors';
import {
  baseLimits,
  checkClickThroughRate,
  checkLimitsOverride,
  clickThroughFactor,
  LIMIT_MAX,
  limitsInForce,
  scaleLimits,
  type AccountLimits,
} from './limits';

const POLICY = { referenceRate: 0.05, minFactor: 0.5, maxFactor: 2 };
const DEFAULTS: AccountLimits = {
  dailyBroadcasts: 10,
  dailyRecipients: 1_000_000,
  minIntervalMs: 4 * 3_600_000,
  maxSpeed: 1_000,
};

describe('clickThroughFactor', () => {
  it.each<[number | null, number]>([
    [null, 1],
    [0, 0.5],
    [0.01, 0.5],
    [0.025, 0.5],
    [0.03, 0.6],
    [0.05, 1],
    [0.07, 1.4],
    [0.1, 2],
    [0.5, 2],
    [1, 2],
  ])('rate %p gives factor %p', (rate, factor) => {
    expect(clickThroughFactor(POLICY, rate)).toBe(factor);
  });

  it('is monotone in the rate and stays within [minFactor, maxFactor]', () => {
    let previous = 0;
    for (let i = 0; i <= 1000; i++) {
      const factor = clickThroughFactor(POLICY, i / 1000);
      expect(factor).toBeGreaterThanOrEqual(previous);
      expect(factor).toBeGreaterThanOrEqual(POLICY.minFactor);
      expect(factor).toBeLessThanOrEqual(POLICY.maxFactor);
      previous = factor;
    }
  });
});

describe('scaleLimits', () => {
  it.each<[number, AccountLimits]>([
    [1, DEFAULTS],
    [0.6, { dailyBroadcasts: 6, dailyRecipients: 600_000, minIntervalMs: 24_000_000, maxSpeed: 600 }],
    [1.4, { dailyBroadcasts: 14, dailyRecipients: 1_400_000, minIntervalMs: 10_285_715, maxSpeed: 1_400 }],
    [0.5, { dailyBroadcasts: 5, dailyRecipients: 500_000, minIntervalMs: 28_800_000, maxSpeed: 500 }],
    [2, { dailyBroadcasts: 20, dailyRecipients: 2_000_000, minIntervalMs: 7_200_000, maxSpeed: 2_000 }],
  ])('factor %p: quotas multiplied (rounded down), the interval divided (rounded up)', (factor, expected) => {
    expect(scaleLimits(DEFAULTS, factor)).toEqual(expected);
  });

  it('never takes a quota below 1 unless it is 0, and keeps every limit within its maximum', () => {
    expect(scaleLimits({ dailyBroadcasts: 1, dailyRecipients: 1, minIntervalMs: 0, maxSpeed: 1 }, 0.5)).toEqual({
      dailyBroadcasts: 1,
      dailyRecipients: 1,
      minIntervalMs: 0,
      maxSpeed: 1,
    });
    // maxSpeed 0 (may not set a speed) stays 0 however good the rate.
    expect(scaleLimits({ dailyBroadcasts: 0, dailyRecipients: 0, minIntervalMs: 0, maxSpeed: 0 }, 2)).toEqual({
      dailyBroadcasts: 0,
      dailyRecipients: 0,
      minIntervalMs: 0,
      maxSpeed: 0,
    });
    expect(scaleLimits({ ...LIMIT_MAX }, 2)).toEqual({ ...LIMIT_MAX, minIntervalMs: LIMIT_MAX.minIntervalMs / 2 });
    expect(scaleLimits({ ...LIMIT_MAX }, 0.5).minIntervalMs).toBe(LIMIT_MAX.minIntervalMs);
  });

  it('is exact for large values (integer arithmetic, no 5.999...)', () => {
    expect(
      scaleLimits(
        { dailyBroadcasts: 999_999, dailyRecipients: 999_999_999_999, minIntervalMs: 86_399_999, maxSpeed: 99_999_999 },
        0.6,
      ),
    ).toEqual({
      dailyBroadcasts: 599_999,
      dailyRecipients: 599_999_999_999,
      minIntervalMs: 86_400_000,
      maxSpeed: 59_999_999,
    });
    expect(scaleLimits({ dailyBroadcasts: 3, dailyRecipients: 10, minIntervalMs: 3, maxSpeed: 10 }, 0.7)).toEqual({
      dailyBroadcasts: 2,
      dailyRecipients: 7,
      minIntervalMs: 5,
      maxSpeed: 7,
    });
  });

  it('gives more (never less) room for a better rate: monotone over the whole range', () => {
    let previous = limitsInForce(DEFAULTS, {}, POLICY, 0).limits;
    for (let i = 1; i <= 200; i++) {
      const next = limitsInForce(DEFAULTS, {}, POLICY, i / 1000).limits;
      expect(next.dailyBroadcasts).toBeGreaterThanOrEqual(previous.dailyBroadcasts);
      expect(next.dailyRecipients).toBeGreaterThanOrEqual(previous.dailyRecipients);
      expect(next.minIntervalMs).toBeLessThanOrEqual(previous.minIntervalMs);
      expect(next.maxSpeed).toBeGreaterThanOrEqual(previous.maxSpeed);
      previous = next;
    }
  });
});

describe('baseLimits and limitsInForce', () => {
  it('takes the override field by field over the defaults, then scales by the rate', () => {
    expect(baseLimits(DEFAULTS, {})).toEqual(DEFAULTS);
    expect(baseLimits(DEFAULTS, { dailyBroadcasts: 2 })).toEqual({ ...DEFAULTS, dailyBroadcasts: 2 });
    expect(baseLimits(DEFAULTS, { minIntervalMs: 0, dailyRecipients: 5 })).toEqual({
      dailyBroadcasts: 10,
      dailyRecipients: 5,
      minIntervalMs: 0,
      maxSpeed: 1_000,
    });
    expect(baseLimits(DEFAULTS, { maxSpeed: 0 })).toEqual({ ...DEFAULTS, maxSpeed: 0 });
    expect(limitsInForce(DEFAULTS, { dailyBroadcasts: 4 }, POLICY, 0.1)).toEqual({
      base: { ...DEFAULTS, dailyBroadcasts: 4 },
      factor: 2,
      limits: { dailyBroadcasts: 8, dailyRecipients: 2_000_000, minIntervalMs: 7_200_000, maxSpeed: 2_000 },
    });
    expect(limitsInForce(DEFAULTS, {}, POLICY, null)).toEqual({ base: DEFAULTS, factor: 1, limits: DEFAULTS });
  });
});

describe('checks', () => {
  const field = (fn: () => unknown) => {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(ValidationError);
      return (error as ValidationError).details.field;
    }
    throw new Error('expected a ValidationError');
  };

  it('accepts an override of known limits in range, dropping undefined fields', () => {
    expect(checkLimitsOverride({})).toEqual({});
    expect(checkLimitsOverride({ dailyBroadcasts: 0, minIntervalMs: 86_400_000, dailyRecipients: undefined })).toEqual({
      dailyBroadcasts: 0,
      minIntervalMs: 86_400_000,
    });
  });

  it.each<[string, unknown, string]>([
    ['not an object', 5, 'limits'],
    ['an array', [], 'limits'],
    ['null', null, 'limits'],
    ['an unknown limit', { weekly: 1 }, 'limits.weekly'],
    ['a negative quota', { dailyBroadcasts: -1 }, 'limits.dailyBroadcasts'],
    ['a fractional quota', { dailyRecipients: 1.5 }, 'limits.dailyRecipients'],
    ['an interval over a day', { minIntervalMs: 86_400_001 }, 'limits.minIntervalMs'],
    ['a speed over 10^8', { maxSpeed: 100_000_001 }, 'limits.maxSpeed'],
    ['a fractional speed', { maxSpeed: 2.5 }, 'limits.maxSpeed'],
    ['a string', { dailyBroadcasts: '3' }, 'limits.dailyBroadcasts'],
  ])('refuses an override that is %s, naming the field', (_name, value, expected) => {
    expect(field(() => checkLimitsOverride(value))).toBe(expected);
  });

  it('takes a click-through rate in [0, 1] or null', () => {
    expect(checkClickThroughRate(0)).toBe(0);
    expect(checkClickThroughRate(1)).toBe(1);
    expect(checkClickThroughRate(null)).toBeNull();
    for (const bad of [-0.1, 1.01, Number.NaN, Number.POSITIVE_INFINITY, '0.1', undefined])
      expect(field(() => checkClickThroughRate(bad))).toBe('clickThroughRate');
  });
});
