import { parseDate, parseDateTime, toDateTimeText } from '../src/lib/datetime-input';

/** Dates and times as the console's inputs take them: ISO order, 24-hour clock, the browser's zone. */
describe('typed dates and times', () => {
  it('reads YYYY-MM-DD HH:MM on a 24-hour clock, with a space or a T, seconds optional', () => {
    const at = new Date(2026, 11, 1, 21, 30).getTime();
    expect(parseDateTime('2026-12-01 21:30')).toEqual({ at });
    expect(parseDateTime(' 2026-12-01T21:30 ')).toEqual({ at });
    expect(parseDateTime('2026-12-01 21:30:15')).toEqual({ at: at + 15_000 });
    expect(parseDateTime('2026-12-01 00:00')).toEqual({ at: new Date(2026, 11, 1).getTime() });
  });

  it("refuses 12-hour and locale forms, and dates or times that do not exist, in the operator's words", () => {
    const format = 'Write it as YYYY-MM-DD HH:MM, on a 24-hour clock (e.g. 2026-12-01 09:30).';
    for (const text of ['12/01/2026 09:30 PM', '2026-12-01 9:30', '2026-12-01', '2026-12-01 09:30 PM', ''])
      expect(parseDateTime(text)).toEqual({ error: format });
    expect(parseDateTime('2026-02-29 10:00')).toEqual({ error: 'No such date: 2026-02-29.' });
    expect(parseDateTime('2026-13-01 10:00')).toEqual({ error: 'No such date: 2026-13-01.' });
    expect(parseDateTime('2026-12-01 24:00')).toEqual({
      error: 'No such time: 24:00 (hours 00 to 23, minutes 00 to 59).',
    });
    expect(parseDateTime('2026-12-01 10:60')).toEqual({
      error: 'No such time: 10:60 (hours 00 to 23, minutes 00 to 59).',
    });
  });

  it('reads a date alone as the start of that day, and writes epoch ms back as the inputs take it', () => {
    expect(parseDate('2028-02-29')).toEqual({ at: new Date(2028, 1, 29).getTime() });
    expect(parseDate('2027-02-29')).toEqual({ error: 'No such date: 2027-02-29.' });
    expect(parseDate('02/28/2027')).toEqual({ error: 'A date as YYYY-MM-DD (e.g. 2026-12-01).' });
    const at = new Date(2026, 0, 5, 7, 3).getTime();
    expect(toDateTimeText(at)).toBe('2026-01-05 07:03');
    expect(parseDateTime(toDateTimeText(at))).toEqual({ at });
  });
});
