import { ValidationError } from '../errors';
import { checkTimeZone, wallClockAt } from './time-zone';

describe('checkTimeZone', () => {
  it('accepts IANA names and gives their canonical spelling', () => {
    expect(checkTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(checkTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(checkTimeZone('UTC')).toBe('UTC');
    // ICU may prefer an older alias (America/Buenos_Aires); whatever it gives is stable.
    const canonical = checkTimeZone('America/Argentina/Buenos_Aires');
    expect(checkTimeZone(canonical)).toBe(canonical);
    expect(checkTimeZone('Etc/GMT+5')).toBe('Etc/GMT+5');
  });

  it.each([
    '',
    'Mars/Olympus',
    'Europe/Berlin ',
    '+01:00',
    'GMT+01:00',
    'Local',
    '../etc/passwd',
    'Europe\u0000Berlin',
    'x'.repeat(65),
  ])('refuses %j with a ValidationError naming the field', (value) => {
    expect(() => checkTimeZone(value, 'tz')).toThrow(ValidationError);
    try {
      checkTimeZone(value, 'tz');
    } catch (error) {
      expect((error as ValidationError).details).toEqual({ field: 'tz' });
    }
  });

  it('answers a spelling checked before as the first time, and still refuses unknown ones', () => {
    for (let i = 0; i < 3; i++) {
      expect(checkTimeZone('asia/tokyo')).toBe('Asia/Tokyo');
      expect(checkTimeZone('Asia/Tokyo')).toBe('Asia/Tokyo');
      expect(() => checkTimeZone('Asia/Tokio', 'tz')).toThrow(ValidationError);
    }
  });

  it('refuses what is not a string', () => {
    for (const value of [undefined, null, 1, {}, ['UTC']]) expect(() => checkTimeZone(value)).toThrow(ValidationError);
  });
});

describe('wallClockAt', () => {
  it('reads the wall clock in 24-hour form', () => {
    expect(wallClockAt('America/New_York', Date.parse('2025-01-01T05:00:00Z'))).toEqual({
      year: 2025,
      month: 1,
      day: 1,
      hour: 0,
      minute: 0,
      second: 0,
    });
    expect(wallClockAt('Asia/Tokyo', Date.parse('2025-12-31T15:30:15Z'))).toEqual({
      year: 2026,
      month: 1,
      day: 1,
      hour: 0,
      minute: 30,
      second: 15,
    });
  });
});
