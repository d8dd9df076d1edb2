import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import { daysInMonth, isLeapYear, MAX_DATE_TIME_MS, parseDateTime, parseOptionalDateTime } from './date-time';
import { parseSendAt, SEND_AT_SKEW_MS } from './send-time';

/** The ValidationError `fn` throws (fails when it throws none). */
function refusal(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

describe('parseDateTime', () => {
  it('reads RFC 3339 date-times with Z or an offset, fractions to the millisecond', () => {
    expect(parseDateTime('2027-06-01T12:00:00Z', 'sendAt')).toBe(Date.UTC(2027, 5, 1, 12));
    expect(parseDateTime('2027-06-01t12:00:00z', 'sendAt')).toBe(Date.UTC(2027, 5, 1, 12));
    expect(parseDateTime('2027-06-01T14:00:00+02:00', 'sendAt')).toBe(Date.UTC(2027, 5, 1, 12));
    expect(parseDateTime('2027-06-01T07:30:00-04:30', 'sendAt')).toBe(Date.UTC(2027, 5, 1, 12));
    expect(parseDateTime('2027-06-01T12:00:00.250Z', 'sendAt')).toBe(Date.UTC(2027, 5, 1, 12, 0, 0, 250));
    expect(parseDateTime('2027-06-01T12:00:00.123456789Z', 'sendAt')).toBe(Date.UTC(2027, 5, 1, 12, 0, 0, 123));
    expect(parseDateTime('2027-06-01T12:00:00-00:00', 'sendAt')).toBe(Date.UTC(2027, 5, 1, 12));
  });

  it('knows leap years: 29 February only in them', () => {
    expect(parseDateTime('2028-02-29T00:00:00Z', 'sendAt')).toBe(Date.UTC(2028, 1, 29));
    expect(parseDateTime('2000-02-29T00:00:00Z', 'sendAt')).toBe(Date.UTC(2000, 1, 29));
    expect(refusal(() => parseDateTime('2027-02-29T00:00:00Z', 'sendAt')).message).toContain(
      'February 2027 has 28 days',
    );
    expect(refusal(() => parseDateTime('2100-02-29T00:00:00Z', 'sendAt')).message).toContain(
      'February 2100 has 28 days',
    );
    expect([isLeapYear(2024), isLeapYear(1900), isLeapYear(2000), isLeapYear(2027)]).toEqual([
      true,
      false,
      true,
      false,
    ]);
  });

  it.each([
    ['an impossible day', '2027-02-30T10:00:00Z'],
    ['the day after a 30-day month', '2027-04-31T00:00:00Z'],
    ['month 13', '2027-13-01T00:00:00Z'],
    ['month 0', '2027-00-10T00:00:00Z'],
    ['day 0', '2027-01-00T00:00:00Z'],
    ['hour 24', '2027-01-01T24:00:00Z'],
    ['a leap second', '2027-06-30T23:59:60Z'],
    ['an offset hour 24', '2027-01-01T00:00:00+24:00'],
    ['a date only', '2027-06-01'],
    ['no offset', '2027-06-01T12:00:00'],
    ['no seconds', '2027-06-01T12:00Z'],
    ['a space for T', '2027-06-01 12:00:00Z'],
    ['an offset without colon', '2027-06-01T12:00:00+0200'],
    ['RFC 2822', 'Tue, 01 Jun 2027 12:00:00 GMT'],
    ['a six-digit year', '+275760-09-13T00:00:00Z'],
    ['a negative year', '-000001-01-01T00:00:00Z'],
    ['epoch ms', '1811846400000'],
    ['empty', ''],
    ['trailing text', '2027-06-01T12:00:00Zjunk'],
    ['before 1970', '1969-12-31T23:59:59Z'],
    ['before 1970 by its offset', '1970-01-01T00:30:00+01:00'],
    ['a two-digit year read as 19xx', '0050-01-01T00:00:00Z'],
  ])('refuses %s, naming the field', (_, raw) => {
    expect(refusal(() => parseDateTime(raw, 'createdFrom')).details).toEqual({ field: 'createdFrom' });
  });

  it('holds the range ends: 1970-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z', () => {
    expect(parseDateTime('1970-01-01T00:00:00Z', 'x')).toBe(0);
    expect(parseDateTime('9999-12-31T23:59:59.999Z', 'x')).toBe(MAX_DATE_TIME_MS);
    expect(MAX_DATE_TIME_MS).toBe(Date.UTC(9999, 11, 31, 23, 59, 59, 999));
    expect(refusal(() => parseDateTime('9999-12-31T23:59:59.999-00:01', 'x')).message).toContain('outside');
  });

  it('agrees with Date.UTC on every calendar-valid date-time, and refuses every day past its month', () => {
    const fields = fc.record({
      year: fc.integer({ min: 1970, max: 9999 }),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      second: fc.integer({ min: 0, max: 59 }),
    });
    fc.assert(
      fc.property(fields, ({ year, month, day, hour, minute, second }) => {
        const raw = `${pad(year, 4)}-${pad(month)}-${pad(day)}T${pad(hour)}:${pad(minute)}:${pad(second)}Z`;
        if (day <= daysInMonth(year, month))
          expect(parseDateTime(raw, 'sendAt')).toBe(Date.UTC(year, month - 1, day, hour, minute, second));
        else expect(refusal(() => parseDateTime(raw, 'sendAt')).details).toEqual({ field: 'sendAt' });
      }),
    );
  });

  it('answers a toISOString of any instant in range with that instant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_DATE_TIME_MS }), (ms) =>
        expect(parseDateTime(new Date(ms).toISOString(), 'at')).toBe(ms),
      ),
    );
  });

  it('keeps a long input out of its message', () => {
    expect(refusal(() => parseDateTime('x'.repeat(10_000), 'sendAt')).message.length).toBeLessThan(300);
  });

  it('leaves an absent optional date absent', () => {
    expect(parseOptionalDateTime(undefined, 'after')).toBeUndefined();
    expect(parseOptionalDateTime('1970-01-01T00:00:01Z', 'after')).toBe(1000);
  });
});

describe('parseSendAt', () => {
  const now = Date.UTC(2026, 10, 26, 12);
  const DAY = 86_400_000;

  it('takes a time from a little in the past (clock skew) to maxAheadMs ahead', () => {
    expect(parseSendAt(new Date(now - SEND_AT_SKEW_MS).toISOString(), 'sendAt', now, 365 * DAY)).toBe(
      now - SEND_AT_SKEW_MS,
    );
    expect(parseSendAt(new Date(now + 365 * DAY).toISOString(), 'sendAt', now, 365 * DAY)).toBe(now + 365 * DAY);
  });

  it('refuses a past time, telling to omit sendAt to send now', () => {
    const error = refusal(() => parseSendAt('2026-02-28T00:00:00Z', 'sendAt', now, 365 * DAY));
    expect(error.message).toMatch(/in the past: omit sendAt to send now/);
    expect(error.details).toMatchObject({ field: 'sendAt' });
  });

  it('refuses a time beyond maxAheadMs', () => {
    const error = refusal(() => parseSendAt(new Date(now + 365 * DAY + 1).toISOString(), 'sendAt', now, 365 * DAY));
    expect(error.message).toMatch(/more than 365 days ahead \(tasks.maxScheduleAheadMs\)/);
    expect(error.details).toMatchObject({ field: 'sendAt' });
  });

  it('refuses an impossible date before judging its distance', () => {
    expect(refusal(() => parseSendAt('2027-02-30T10:00:00Z', 'sendAt', now, 365 * DAY)).message).toContain(
      'February 2027 has 28 days',
    );
  });
});
