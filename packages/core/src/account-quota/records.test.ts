import { AccountQuotaError, ValidationError } from '../errors';
import { accountDayOf } from './day';
import {
  applySettingsPatch,
  checkReservation,
  decideReservation,
  quotaExceeded,
  type BroadcastReservation,
} from './records';

const NOW = 1_700_000_000_000;
const LIMITS = { dailyBroadcasts: 2, dailyRecipients: 100, minIntervalMs: 0, maxSpeed: 0 };
const reservation = (overrides: Partial<BroadcastReservation> = {}): BroadcastReservation => ({
  accountId: 'acme',
  key: 'api:acme:k1',
  sendAt: NOW,
  recipients: 10,
  at: NOW,
  ...overrides,
});
const day = accountDayOf(0, NOW);

const fieldOf = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details.field;
  }
  throw new Error('expected a ValidationError');
};

describe('applySettingsPatch', () => {
  it('starts an account with no override and no rate, and changes only the fields a patch names', () => {
    const first = applySettingsPatch('acme', undefined, { clickThroughRate: 0.04 }, NOW);
    expect(first).toEqual({ accountId: 'acme', limits: {}, clickThroughRate: 0.04, updatedAt: NOW });
    const second = applySettingsPatch('acme', first, { limits: { dailyBroadcasts: 1 } }, NOW + 1);
    expect(second).toEqual({
      accountId: 'acme',
      limits: { dailyBroadcasts: 1 },
      clickThroughRate: 0.04,
      updatedAt: NOW + 1,
    });
    expect(applySettingsPatch('acme', second, { limits: {}, clickThroughRate: null }, NOW + 2)).toEqual({
      accountId: 'acme',
      limits: {},
      clickThroughRate: null,
      updatedAt: NOW + 2,
    });
  });

  it('refuses bad fields by name', () => {
    expect(fieldOf(() => applySettingsPatch('acme', undefined, { limits: { dailyBroadcasts: -1 } }, NOW))).toBe(
      'limits.dailyBroadcasts',
    );
    expect(fieldOf(() => applySettingsPatch('acme', undefined, { clickThroughRate: 2 }, NOW))).toBe('clickThroughRate');
    expect(fieldOf(() => applySettingsPatch('acme', undefined, { weight: 3 } as never, NOW))).toBe('weight');
    expect(fieldOf(() => applySettingsPatch('', undefined, {}, NOW))).toBe('accountId');
    expect(fieldOf(() => applySettingsPatch('acme', undefined, {}, -1))).toBe('now');
  });
});

describe('checkReservation', () => {
  it.each<[string, Partial<BroadcastReservation>, string]>([
    ['an empty account', { accountId: '' }, 'accountId'],
    ['an account over 255 characters', { accountId: 'a'.repeat(256) }, 'accountId'],
    ['an empty key', { key: '' }, 'key'],
    ['a key over 255 characters', { key: 'k'.repeat(256) }, 'key'],
    ['a negative send time', { sendAt: -1 }, 'sendAt'],
    ['a fractional reservation time', { at: NOW + 0.5 }, 'at'],
    ['negative recipients', { recipients: -1 }, 'recipients'],
    ['fractional recipients', { recipients: 1.5 }, 'recipients'],
  ])('refuses %s, naming the field', (_name, overrides, field) => {
    expect(fieldOf(() => checkReservation(reservation(overrides), LIMITS, day))).toBe(field);
  });

  it('refuses incomplete limits and a day that does not hold the send time', () => {
    expect(fieldOf(() => checkReservation(reservation(), { dailyBroadcasts: 1 } as never, day))).toBe('limits');
    expect(fieldOf(() => checkReservation(reservation(), { ...LIMITS, minIntervalMs: -1 }, day))).toBe(
      'limits.minIntervalMs',
    );
    expect(fieldOf(() => checkReservation(reservation({ sendAt: day.to }), LIMITS, day))).toBe('day');
    expect(() => checkReservation(reservation(), LIMITS, day)).not.toThrow();
  });
});

describe('decideReservation', () => {
  const none = { broadcasts: 0, recipients: 0, previousSendAt: null, nextSendAt: null };

  it('answers a stored key as repeated, whatever the usage', () => {
    expect(decideReservation(reservation(), LIMITS, day, { ...none, broadcasts: 9 }, true)).toEqual({
      admitted: true,
      repeated: true,
      usage: { ...none, broadcasts: 9 },
    });
  });

  it('admits with the usage that includes the new broadcast, or refuses with the usage unchanged', () => {
    expect(decideReservation(reservation(), LIMITS, day, none, false)).toEqual({
      admitted: true,
      repeated: false,
      usage: { broadcasts: 1, recipients: 10, previousSendAt: NOW, nextSendAt: NOW },
    });
    const full = { ...none, broadcasts: 2, recipients: 20 };
    expect(decideReservation(reservation(), LIMITS, day, full, false)).toEqual({
      admitted: false,
      refusal: expect.objectContaining({ limit: 'dailyBroadcasts' }),
      usage: full,
    });
  });
});

describe('quotaExceeded', () => {
  it('is the AccountQuotaError of a refusal: the message, and every other fact as details', () => {
    const refused = decideReservation(
      reservation(),
      LIMITS,
      day,
      { broadcasts: 2, recipients: 20, previousSendAt: null, nextSendAt: null },
      false,
    );
    if (refused.admitted) throw new Error('expected a refusal');
    const error = quotaExceeded('acme', refused.refusal);
    expect(error).toBeInstanceOf(AccountQuotaError);
    expect(error.code).toBe('ACCOUNT_QUOTA_EXCEEDED');
    expect(error.message).toBe(`account acme: ${refused.refusal.message}`);
    expect(error.details).toEqual({
      accountId: 'acme',
      limit: 'dailyBroadcasts',
      field: 'sendAt',
      max: 2,
      used: 2,
      requested: 1,
      retryAt: day.to,
    });
  });
});
