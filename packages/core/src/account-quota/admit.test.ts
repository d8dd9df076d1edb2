import { admit, type AccountUsage } from './admit';
import { accountDayOf, checkAccountDay } from './day';
import type { AccountLimits } from './limits';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2023-11-14T00:00:00Z: a UTC midnight. */
const MIDNIGHT = 1_699_920_000_000;
const LIMITS: AccountLimits = { dailyBroadcasts: 3, dailyRecipients: 1000, minIntervalMs: 4 * HOUR, maxSpeed: 0 };
const NONE: AccountUsage = { broadcasts: 0, recipients: 0, previousSendAt: null, nextSendAt: null };
const day = accountDayOf(0, MIDNIGHT + 12 * HOUR);

describe('accountDayOf (the quotas day)', () => {
  it.each<[string, number, number, number]>([
    ['UTC noon', 0, MIDNIGHT + 12 * HOUR, MIDNIGHT],
    ['UTC midnight belongs to its own day', 0, MIDNIGHT, MIDNIGHT],
    ['the last ms before UTC midnight', 0, MIDNIGHT - 1, MIDNIGHT - DAY],
    ['UTC+8: 16:00Z is local midnight', 480, MIDNIGHT + 16 * HOUR, MIDNIGHT + 16 * HOUR],
    ['UTC+8: 15:59:59.999Z is still the day before', 480, MIDNIGHT + 16 * HOUR - 1, MIDNIGHT - 8 * HOUR],
    ['UTC-5: 05:00Z is local midnight', -300, MIDNIGHT + 5 * HOUR, MIDNIGHT + 5 * HOUR],
    ['UTC-5: 04:00Z is the day before', -300, MIDNIGHT + 4 * HOUR, MIDNIGHT - 19 * HOUR],
  ])('%s', (_name, offset, at, from) => {
    const d = accountDayOf(offset, at);
    expect(d).toEqual({ day: Math.floor((from + offset * 60_000) / DAY), from, to: from + DAY });
    expect(at >= d.from && at < d.to).toBe(true);
  });

  it('numbers days like the C-side frequency policy (days since 1970-01-01, local)', () => {
    expect(accountDayOf(0, 0)).toEqual({ day: 0, from: 0, to: DAY });
    expect(accountDayOf(0, MIDNIGHT).day).toBe(19675);
  });

  it('refuses a negative or fractional time, and a day that does not hold the time', () => {
    expect(() => accountDayOf(0, -1)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => accountDayOf(0, 1.5)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => checkAccountDay(day, day.to)).toThrow(expect.objectContaining({ code: 'VALIDATION_FAILED' }));
    expect(() => checkAccountDay({ day: 1, from: 0, to: HOUR }, 0)).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
    expect(() => checkAccountDay(day, day.from)).not.toThrow();
  });
});

describe('admit', () => {
  const request = (sendAt: number, recipients = 100) => ({ sendAt, recipients });

  it('admits a broadcast that fits every limit', () => {
    expect(admit(LIMITS, NONE, request(MIDNIGHT + HOUR), day)).toEqual({ ok: true });
    expect(
      admit(
        LIMITS,
        { broadcasts: 2, recipients: 900, previousSendAt: MIDNIGHT, nextSendAt: null },
        request(MIDNIGHT + 4 * HOUR),
        day,
      ),
    ).toEqual({ ok: true });
  });

  it('refuses the broadcast after the daily quota, pointing at the next day', () => {
    const answer = admit(LIMITS, { ...NONE, broadcasts: 3, recipients: 300 }, request(MIDNIGHT + 12 * HOUR), day);
    expect(answer).toEqual({
      ok: false,
      refusal: expect.objectContaining({
        limit: 'dailyBroadcasts',
        field: 'sendAt',
        max: 3,
        used: 3,
        requested: 1,
        retryAt: MIDNIGHT + DAY,
      }),
    });
  });

  it('refuses recipients over the daily quota; no retry time when the list alone is over it', () => {
    expect(admit(LIMITS, { ...NONE, broadcasts: 1, recipients: 901 }, request(MIDNIGHT + 12 * HOUR), day)).toEqual({
      ok: false,
      refusal: expect.objectContaining({
        limit: 'dailyRecipients',
        field: 'listId',
        max: 1000,
        used: 901,
        requested: 100,
        retryAt: MIDNIGHT + DAY,
      }),
    });
    expect(admit(LIMITS, { ...NONE, recipients: 900 }, request(MIDNIGHT + 12 * HOUR, 100), day)).toEqual({ ok: true });
    const never = admit(LIMITS, NONE, request(MIDNIGHT + 12 * HOUR, 1001), day);
    expect(never.ok).toBe(false);
    if (!never.ok) {
      expect(never.refusal).toMatchObject({ limit: 'dailyRecipients', requested: 1001 });
      expect(never.refusal.retryAt).toBeUndefined();
    }
  });

  it.each<[string, number | null, number | null, number, number | undefined]>([
    ['just after the previous one', MIDNIGHT + 10 * HOUR, null, MIDNIGHT + 12 * HOUR, MIDNIGHT + 14 * HOUR],
    ['exactly the interval after the previous one', MIDNIGHT + 8 * HOUR, null, MIDNIGHT + 12 * HOUR, undefined],
    [
      'at the same time as another',
      MIDNIGHT + 12 * HOUR,
      MIDNIGHT + 12 * HOUR,
      MIDNIGHT + 12 * HOUR,
      MIDNIGHT + 16 * HOUR,
    ],
    ['just before a scheduled one', null, MIDNIGHT + 13 * HOUR, MIDNIGHT + 12 * HOUR, MIDNIGHT + 17 * HOUR],
    ['exactly the interval before a scheduled one', null, MIDNIGHT + 16 * HOUR, MIDNIGHT + 12 * HOUR, undefined],
    [
      'after one late the day before (the interval crosses midnight)',
      MIDNIGHT - HOUR,
      null,
      MIDNIGHT + HOUR,
      MIDNIGHT + 3 * HOUR,
    ],
  ])('the least interval: %s', (_name, previousSendAt, nextSendAt, sendAt, retryAt) => {
    const answer = admit(
      LIMITS,
      { broadcasts: 1, recipients: 100, previousSendAt, nextSendAt },
      request(sendAt),
      accountDayOf(0, sendAt),
    );
    if (retryAt === undefined) {
      expect(answer).toEqual({ ok: true });
    } else {
      expect(answer).toEqual({
        ok: false,
        refusal: expect.objectContaining({ limit: 'minIntervalMs', field: 'sendAt', max: 4 * HOUR, retryAt }),
      });
    }
  });

  it('checks no interval when minIntervalMs is 0, and refuses everything when a quota is 0', () => {
    const usage = {
      broadcasts: 1,
      recipients: 1,
      previousSendAt: MIDNIGHT + 12 * HOUR,
      nextSendAt: MIDNIGHT + 12 * HOUR,
    };
    expect(admit({ ...LIMITS, minIntervalMs: 0 }, usage, request(MIDNIGHT + 12 * HOUR), day)).toEqual({ ok: true });
    expect(admit({ ...LIMITS, dailyBroadcasts: 0 }, NONE, request(MIDNIGHT + 12 * HOUR), day)).toMatchObject({
      ok: false,
      refusal: { limit: 'dailyBroadcasts' },
    });
    expect(admit({ ...LIMITS, dailyRecipients: 0 }, NONE, request(MIDNIGHT + 12 * HOUR, 1), day)).toMatchObject({
      ok: false,
      refusal: { limit: 'dailyRecipients' },
    });
  });

  it('checks the daily count before the recipients, and both before the interval', () => {
    const full = { broadcasts: 3, recipients: 1000, previousSendAt: MIDNIGHT + 12 * HOUR, nextSendAt: null };
    expect(admit(LIMITS, full, request(MIDNIGHT + 12 * HOUR), day)).toMatchObject({
      refusal: { limit: 'dailyBroadcasts' },
    });
    expect(admit(LIMITS, { ...full, broadcasts: 1 }, request(MIDNIGHT + 12 * HOUR), day)).toMatchObject({
      refusal: { limit: 'dailyRecipients' },
    });
  });

  it('says what happened and what to do in the message', () => {
    const answer = admit(LIMITS, { ...NONE, broadcasts: 3 }, request(MIDNIGHT + 12 * HOUR), day);
    expect(!answer.ok && answer.refusal.message).toContain('daily quota of 3 broadcasts');
    expect(!answer.ok && answer.refusal.message).toContain(new Date(MIDNIGHT + DAY).toISOString());
  });
});
