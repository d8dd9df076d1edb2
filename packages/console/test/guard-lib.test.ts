import { cronRefusalText, estimateReach, firingsPerDayOf } from '../src/lib/campaign-reach';
import { countdownText, showsCountdown } from '../src/lib/countdown';
import { confirmationOf, typedCountMatches } from '../src/lib/large-send';

/** The pure parts of the console's broadcast guard (issue 15): the confirmation, the countdown, the daily reach. */
describe('large-broadcast confirmation', () => {
  // The fields of the client's ApiError that the guard reads.
  const refusal = {
    status: 409,
    code: 'CONFIRMATION_REQUIRED',
    message: 'confirm the audience',
    details: { field: 'confirm', recipients: 9_873_201, threshold: 1_000_000 },
  };

  it("reads the count to confirm from the server's 409, and nothing else", () => {
    expect(confirmationOf(refusal)).toEqual({ recipients: 9_873_201, threshold: 1_000_000 });
    expect(confirmationOf({ ...refusal, code: 'ILLEGAL_TRANSITION' })).toBeNull();
    expect(confirmationOf({ ...refusal, details: { recipients: 'many' } })).toBeNull();
    expect(confirmationOf(new Error('CONFIRMATION_REQUIRED'))).toBeNull();
    expect(confirmationOf(null)).toBeNull();
  });

  it('accepts the count typed with or without separators, never a near miss', () => {
    for (const typed of ['9873201', '9,873,201', ' 9 873 201 ', '9.873.201'])
      expect([typed, typedCountMatches(typed, 9_873_201)]).toEqual([typed, true]);
    for (const typed of ['', '9873200', '9,873,2010', '9.8M', '10000000', 'yes'])
      expect([typed, typedCountMatches(typed, 9_873_201)]).toEqual([typed, false]);
  });
});

describe('send countdown', () => {
  it('counts whole seconds up, only for a scheduled task due within the hour', () => {
    expect(countdownText(10_000, 1_500)).toBe('Sending in 9 s');
    expect(countdownText(10_000, 9_999)).toBe('Sending in 1 s');
    expect(countdownText(10_000, 10_000)).toBe('Starting…');
    expect(showsCountdown({ state: 'SCHEDULED', sendAt: 10_000 }, 0)).toBe(true);
    expect(showsCountdown({ state: 'CANCELLED', sendAt: 10_000 }, 0)).toBe(false);
    expect(showsCountdown({ state: 'SCHEDULED', sendAt: 86_400_000 }, 0)).toBe(false);
  });
});

describe('campaign daily reach', () => {
  const times = (start: number, stepMs: number, n = 5) =>
    Array.from({ length: n }, (_, i) => new Date(start + i * stepMs).toISOString());

  it('estimates firings a day from the next fire times', () => {
    expect(firingsPerDayOf(times(0, 60_000))).toBe(1440);
    expect(firingsPerDayOf(times(0, 1000))).toBe(86_400);
    expect(firingsPerDayOf(times(0, 86_400_000))).toBe(1);
    // Weekdays at 9: Friday, then Monday.
    expect(firingsPerDayOf([0, 3, 4, 5, 6].map((d) => new Date(d * 86_400_000).toISOString()))).toBe(1);
    expect(firingsPerDayOf([])).toBe(0);
    expect(estimateReach(times(0, 3_600_000), 2000)).toEqual({
      firingsPerDay: 24,
      recipientsPerFiring: 2000,
      recipientsPerDay: 48_000,
    });
  });

  it("words the too-often refusal for the operator, and keeps a syntax error's own message", () => {
    const tooOften = {
      message:
        "cron '*/5 * * * *' fires 5 minutes apart (at ...): campaigns fire at most every 60 minutes (campaigns.minPeriodMs)",
      details: { field: 'cron', smallestGapMs: 300_000, minPeriodMs: 3_600_000 },
    };
    expect(cronRefusalText(tooOften)).toBe(
      'This schedule fires too often (5 minutes apart at its closest): a campaign may fire at most once an hour. Choose a slower schedule, e.g. 0 * * * * for every hour on the hour.',
    );
    expect(
      cronRefusalText({ ...tooOften, details: { field: 'cron', smallestGapMs: 1000, minPeriodMs: 7_200_000 } }),
    ).toContain('(1 second apart at its closest): a campaign may fire at most once every 2 hours.');
    const syntax = { message: 'cron: hour 25 is out of range 0-23', details: { field: 'cron' } };
    expect(cronRefusalText(syntax)).toBe('cron: hour 25 is out of range 0-23');
  });
});
