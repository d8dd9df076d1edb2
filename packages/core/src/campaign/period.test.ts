import { checkCampaignPeriod, projectedDailyReach, smallestGap } from './period';

const FRIDAY_NOON = Date.parse('2025-03-28T12:00:00Z');
const HOUR = 3_600_000;

describe('campaign period', () => {
  it('finds the smallest gap across a day boundary and in its zone', () => {
    expect(smallestGap({ cron: '0 9,17 * * *', timeZone: 'UTC' }, FRIDAY_NOON)).toEqual({
      gapMs: 8 * HOUR,
      at: Date.parse('2025-03-29T17:00:00Z'),
    });
    // 23:59 and 00:00 the next day: one minute apart.
    expect(smallestGap({ cron: '0,59 0,23 * * *', timeZone: 'UTC' }, FRIDAY_NOON)?.gapMs).toBe(60_000);
    expect(smallestGap({ cron: '0 0 1 1 *', timeZone: 'UTC' }, Date.parse('9998-06-01T00:00:00Z'))).toBeUndefined();
  });

  it('refuses a schedule under the minimum, naming cron with the gap', () => {
    expect(() =>
      checkCampaignPeriod({ cron: '0 * * * *', timeZone: 'Europe/Berlin' }, HOUR, FRIDAY_NOON),
    ).not.toThrow();
    expect(() => checkCampaignPeriod({ cron: '*/5 * * * *', timeZone: 'UTC' }, HOUR, FRIDAY_NOON)).toThrow(
      expect.objectContaining({
        code: 'VALIDATION_FAILED',
        details: { field: 'cron', smallestGapMs: 300_000, minPeriodMs: HOUR },
      }),
    );
    expect(() => checkCampaignPeriod({ cron: 'nope', timeZone: 'UTC' }, HOUR, FRIDAY_NOON)).toThrow(
      expect.objectContaining({ details: expect.objectContaining({ field: 'cron' }) }),
    );
  });

  it('projects the daily reach over a week, or from the span of the firings it could count', () => {
    expect(projectedDailyReach({ cron: '0 9 * * mon', timeZone: 'UTC' }, FRIDAY_NOON, 700)).toEqual({
      firingsPerDay: 0.143,
      recipientsPerFiring: 700,
      recipientsPerDay: 100,
    });
    expect(projectedDailyReach({ cron: '* * * * * *', timeZone: 'UTC' }, FRIDAY_NOON, 2)).toEqual({
      firingsPerDay: 86_400,
      recipientsPerFiring: 2,
      recipientsPerDay: 172_800,
    });
    expect(projectedDailyReach({ cron: '0 * * * *', timeZone: 'UTC' }, FRIDAY_NOON, null)).toEqual({
      firingsPerDay: 24,
      recipientsPerFiring: null,
      recipientsPerDay: null,
    });
  });
});
