import { scheduleScore, SCORE, type ScoreInput } from './score';

const NOW = Date.UTC(2030, 0, 1);
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const YEAR = 365 * DAY;

/** A normal task that just became ready, 10k recipients, expiring in a day, weight 1. */
function input(over: Partial<ScoreInput> = {}): ScoreInput {
  return { priority: 'normal', readySince: NOW, recipients: 10_000, expiresAt: NOW + DAY, accountWeight: 1, ...over };
}

const score = (over: Partial<ScoreInput> = {}, now = NOW) => scheduleScore(input(over), now);

describe('scheduleScore', () => {
  it('ranks the weakest real-time task above the strongest normal task, even one waiting a year', () => {
    const weakestRealtime = score({ priority: 'realtime', recipients: 1e12, expiresAt: NOW + YEAR, accountWeight: 0 });
    const strongestNormal = score({ readySince: NOW - YEAR, recipients: 1, expiresAt: NOW - HOUR, accountWeight: 10 });
    expect(weakestRealtime).toBeGreaterThan(strongestNormal);
    expect(weakestRealtime).toBeGreaterThanOrEqual(SCORE.realtimeBase);
    expect(score({ priority: 'realtime', accountWeight: 0 }) - score({ accountWeight: 0 })).toBe(SCORE.realtimeBase);
  });

  it('grows by 10 points per minute waited', () => {
    const fresh = score();
    expect(score({ readySince: NOW - MINUTE })).toBeCloseTo(fresh + 10, 9);
    expect(score({ readySince: NOW - HOUR })).toBeCloseTo(fresh + 600, 9);
    expect(score({ readySince: NOW - DAY })).toBeGreaterThan(score({ readySince: NOW - HOUR }));
  });

  it('caps aging at 100,000 points', () => {
    const fresh = score();
    const capAt = (SCORE.agingCap / SCORE.agingPerMinute) * MINUTE;
    expect(score({ readySince: NOW - capAt })).toBeCloseTo(fresh + SCORE.agingCap, 6);
    expect(score({ readySince: NOW - 30 * DAY })).toBeCloseTo(fresh + SCORE.agingCap, 6);
    expect(score({ readySince: NOW - YEAR })).toBeCloseTo(fresh + SCORE.agingCap, 6);
  });

  it('lets a normal task that waited long enough outrank any fresh normal task', () => {
    const oldAndWeak = score({ readySince: NOW - YEAR, recipients: 1e12, expiresAt: NOW + YEAR, accountWeight: 0 });
    const freshAndStrong = score({ recipients: 1, expiresAt: NOW - HOUR, accountWeight: 10 });
    expect(oldAndWeak).toBeGreaterThan(freshAndStrong);
  });

  it('gives no aging to a task whose ready time is still in the future', () => {
    expect(score({ readySince: NOW + HOUR })).toBe(score());
  });

  it('scores a smaller audience higher, all else equal', () => {
    const sizes = [1, 10, 1_000, 100_000, 10_000_000, 1_000_000_000];
    const scores = sizes.map((recipients) => score({ recipients }));
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThan(scores[i - 1]!);
    // The size term spans 0..100: 100 for one recipient, 0 at a billion and beyond.
    expect(scores[0]! - scores[scores.length - 1]!).toBeCloseTo(SCORE.sizeMax, 9);
    expect(score({ recipients: 1e12 })).toBe(score({ recipients: 1e9 }));
    expect(score({ recipients: 0 })).toBe(score({ recipients: 1 }));
  });

  it('adds nothing for the deadline while an hour or more is left', () => {
    expect(score({ expiresAt: NOW + HOUR })).toBe(score({ expiresAt: NOW + YEAR }));
    expect(score({ expiresAt: NOW + DAY })).toBe(score({ expiresAt: NOW + YEAR }));
  });

  it('raises the deadline term linearly as expiry nears, to 1,000 at and after expiry', () => {
    const far = score({ expiresAt: NOW + YEAR });
    const slacks = [59 * MINUTE, 45 * MINUTE, 30 * MINUTE, 10 * MINUTE, MINUTE, 0];
    const scores = slacks.map((slack) => score({ expiresAt: NOW + slack }));
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeGreaterThan(scores[i - 1]!);
    expect(score({ expiresAt: NOW + 30 * MINUTE })).toBeCloseTo(far + SCORE.deadlineMax / 2, 9);
    expect(score({ expiresAt: NOW })).toBeCloseTo(far + SCORE.deadlineMax, 9);
    expect(score({ expiresAt: NOW - DAY })).toBeCloseTo(far + SCORE.deadlineMax, 9);
  });

  it('adds 100 per unit of account weight, clamped to [0, 10]', () => {
    const zero = score({ accountWeight: 0 });
    expect(score({ accountWeight: undefined })).toBe(zero);
    expect(score({ accountWeight: 5 })).toBeCloseTo(zero + 500, 9);
    expect(score({ accountWeight: 10 })).toBeCloseTo(zero + 1000, 9);
    expect(score({ accountWeight: 1000 })).toBe(score({ accountWeight: 10 }));
    expect(score({ accountWeight: -7 })).toBe(zero);
  });

  it('depends only on its inputs and the given clock', () => {
    const a = input({ readySince: NOW - 5 * MINUTE });
    expect(scheduleScore(a, NOW)).toBe(scheduleScore({ ...a }, NOW));
    expect(scheduleScore(a, NOW + MINUTE)).toBeCloseTo(scheduleScore(a, NOW) + 10, 9);
  });
});
