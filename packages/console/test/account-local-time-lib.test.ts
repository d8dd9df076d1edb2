import {
  accountLocalTimeBody,
  accountLocalTimeFieldOf,
  draftOfAccountLocalTime,
  validateAccountLocalTime,
} from '../src/lib/account-local-time-form';
import { localTimeBody, localTimeFieldOf, localTimeFormOf, quietHoursWords } from '../src/lib/local-time-form';

/** Quiet hours' modes in the task form, and an account's local-time defaults form (issue 21), without a browser. */
describe('quiet hours modes', () => {
  it('sends the string form when held and the object form only when queued for the next login', () => {
    const held = { ...localTimeFormOf(undefined, undefined), quietOn: true, quietFrom: '22:00', quietTo: '07:00' };
    expect(localTimeBody(held)).toEqual({ quietHours: '22:00-07:00' });
    expect(localTimeBody({ ...held, quietDuring: 'offline' })).toEqual({
      quietHours: { hours: '22:00-07:00', during: 'offline' },
    });
    expect(localTimeBody({ ...held, quietOn: false, quietDuring: 'offline' })).toEqual({});
  });

  it('reads every form the API answers back into the form', () => {
    for (const answer of [
      { from: '22:00', to: '07:00', during: 'offline' as const, atLogin: 'hold' as const },
      { hours: '22:00-07:00', during: 'offline' as const },
    ])
      expect(localTimeFormOf(undefined, answer)).toMatchObject({
        quietOn: true,
        quietFrom: '22:00',
        quietTo: '07:00',
        quietDuring: 'offline',
      });
    expect(localTimeFormOf(undefined, '23:00-06:00')).toMatchObject({ quietFrom: '23:00', quietDuring: 'hold' });
    expect(localTimeFormOf(undefined, { from: '23:00', to: '06:00' }).quietDuring).toBe('hold');
    expect(quietHoursWords({ hours: '22:00-07:00', during: 'offline' })).toBe('22:00–07:00, queue for the next login');
    expect(quietHoursWords('22:00-07:00')).toBe('22:00–07:00, hold until they end');
    expect(quietHoursWords(null)).toBe('none');
  });

  it("lands the object form's refusals on the form's fields", () => {
    expect(localTimeFieldOf('quietHours.hours')).toBe('quietFrom');
    expect(localTimeFieldOf('quietHours.during')).toBe('quietDuring');
  });
});

describe('account local-time defaults form', () => {
  const answer = {
    accountId: 'acme',
    defaultTimeZone: 'Europe/Berlin',
    quietHours: { hours: '21:30-07:00', during: 'offline' as const },
    loginDelivery: 'hold' as const,
  };

  it('round-trips what GET answers into the PUT body', () => {
    const draft = draftOfAccountLocalTime(answer);
    expect(draft).toEqual({
      defaultTimeZone: 'Europe/Berlin',
      quietOn: true,
      quietFrom: '21:30',
      quietTo: '07:00',
      quietDuring: 'offline',
      loginDelivery: 'hold',
    });
    expect(accountLocalTimeBody(draft)).toEqual({
      defaultTimeZone: 'Europe/Berlin',
      quietHours: { hours: '21:30-07:00', during: 'offline' },
      loginDelivery: 'hold',
    });
  });

  it('says none as null: a PUT replaces all three', () => {
    const none = draftOfAccountLocalTime({
      accountId: 'acme',
      defaultTimeZone: null,
      quietHours: null,
      loginDelivery: 'deliver',
    });
    expect(none.quietOn).toBe(false);
    expect(accountLocalTimeBody({ ...none, defaultTimeZone: '  ' })).toEqual({
      defaultTimeZone: null,
      quietHours: null,
      loginDelivery: 'deliver',
    });
    expect(accountLocalTimeBody({ ...none, quietOn: true })).toMatchObject({ quietHours: '22:00-08:00' });
  });

  it("refuses what the server refuses, under the form's fields", () => {
    const draft = draftOfAccountLocalTime(answer);
    expect(validateAccountLocalTime(draft)).toEqual({});
    expect(validateAccountLocalTime({ ...draft, quietFrom: '08:00', quietTo: '08:00' }).quietFrom).toMatch(/whole day/);
    expect(validateAccountLocalTime({ ...draft, quietTo: '24:00' }).quietFrom).toMatch(/^Until: /);
    // Quiet hours switched off are not checked: they are not sent.
    expect(validateAccountLocalTime({ ...draft, quietOn: false, quietFrom: 'x' })).toEqual({});
    expect(validateAccountLocalTime({ ...draft, defaultTimeZone: 'Mars/Base' }).defaultTimeZone).toMatch(
      /^“Mars\/Base” is not a time zone/,
    );
    expect(validateAccountLocalTime({ ...draft, defaultTimeZone: '+14:30' }).defaultTimeZone).toBeDefined();
    expect(validateAccountLocalTime({ ...draft, defaultTimeZone: '+05:30' })).toEqual({});
    expect(accountLocalTimeFieldOf('defaultTimeZone')).toBe('defaultTimeZone');
    expect(accountLocalTimeFieldOf('quietHours')).toBe('quietFrom');
    expect(accountLocalTimeFieldOf('quietHours.hours')).toBe('quietFrom');
    expect(accountLocalTimeFieldOf('quietHours.during')).toBe('quietDuring');
    expect(accountLocalTimeFieldOf('loginDelivery')).toBe('loginDelivery');
    expect(accountLocalTimeFieldOf('accountId')).toBeUndefined();
  });
});
