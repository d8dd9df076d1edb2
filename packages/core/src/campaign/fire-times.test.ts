import { ValidationError } from '../errors';
import { parseCron } from './cron';
import { compileSchedule, nextFireTimes } from './fire-times';
import { offsetAt, wallClockAt } from './time-zone';

const at = (iso: string) => Date.parse(iso);
const iso = (times: number[]) => times.map((t) => new Date(t).toISOString().replace('.000Z', 'Z'));

describe('nextFireTimes', () => {
  it('gives the next times strictly after `after`, in whole seconds', () => {
    const spec = { cron: '*/20 * * * * *', timeZone: 'UTC' };
    expect(iso(nextFireTimes(spec, at('2025-01-01T10:00:05.500Z'), 3))).toEqual([
      '2025-01-01T10:00:20Z',
      '2025-01-01T10:00:40Z',
      '2025-01-01T10:01:00Z',
    ]);
    expect(iso(nextFireTimes(spec, at('2025-01-01T10:00:20Z'), 1))).toEqual(['2025-01-01T10:00:40Z']);
    expect(nextFireTimes(spec, 0, 0)).toEqual([]);
  });

  it('reads the wall clock of the campaign time zone', () => {
    const weekdays9 = { cron: '0 9 * * mon-fri', timeZone: 'Asia/Kolkata' };
    // 2025-01-03 is a Friday; 09:00 IST is 03:30 UTC.
    expect(iso(nextFireTimes(weekdays9, at('2025-01-02T04:00:00Z'), 3))).toEqual([
      '2025-01-03T03:30:00Z',
      '2025-01-06T03:30:00Z',
      '2025-01-07T03:30:00Z',
    ]);
  });

  it('requires day of month AND day of week to match (node-cron), not either', () => {
    // Friday the 13th.
    expect(iso(nextFireTimes({ cron: '0 0 13 * 5', timeZone: 'UTC' }, at('2025-01-01T00:00:00Z'), 2))).toEqual([
      '2025-06-13T00:00:00Z',
      '2026-02-13T00:00:00Z',
    ]);
  });

  it('finds rare times years ahead, and stops at year 9999', () => {
    expect(iso(nextFireTimes({ cron: '0 0 29 2 1', timeZone: 'UTC' }, at('2025-01-01T00:00:00Z'), 2))).toEqual([
      '2044-02-29T00:00:00Z',
      '2072-02-29T00:00:00Z',
    ]);
    expect(iso(nextFireTimes({ cron: '@yearly', timeZone: 'UTC' }, at('9998-06-01T00:00:00Z'), 5))).toEqual([
      '9999-01-01T00:00:00Z',
    ]);
  });

  // DST: every matching wall-clock time fires once. Gap: shifted later by the gap's length. Overlap: first occurrence only.
  describe.each([
    // Europe/Berlin 2025: clocks forward 30 March 02:00 CET -> 03:00 CEST; back 26 October 03:00 CEST -> 02:00 CET.
    [
      'Europe/Berlin',
      'daily 02:30 across the spring gap',
      '30 2 * * *',
      '2025-03-28T12:00:00Z',
      ['2025-03-29T01:30:00Z', '2025-03-30T01:30:00Z', '2025-03-31T00:30:00Z'],
    ],
    [
      'Europe/Berlin',
      'daily 02:30 across the autumn overlap',
      '30 2 * * *',
      '2025-10-24T12:00:00Z',
      ['2025-10-25T00:30:00Z', '2025-10-26T00:30:00Z', '2025-10-27T01:30:00Z'],
    ],
    [
      'Europe/Berlin',
      'every 30 minutes through the gap',
      '*/30 * * * *',
      '2025-03-30T00:00:00Z',
      ['2025-03-30T00:30:00Z', '2025-03-30T01:00:00Z', '2025-03-30T01:30:00Z', '2025-03-30T02:00:00Z'],
    ],
    [
      'Europe/Berlin',
      'hourly through the overlap (pauses for the repeated hour)',
      '0 * * * *',
      '2025-10-25T23:30:00Z',
      ['2025-10-26T00:00:00Z', '2025-10-26T02:00:00Z', '2025-10-26T03:00:00Z'],
    ],
    [
      'Europe/Berlin',
      'daily 09:00 keeps its wall-clock time',
      '0 9 * * *',
      '2025-03-29T12:00:00Z',
      ['2025-03-30T07:00:00Z', '2025-03-31T07:00:00Z'],
    ],
    // America/New_York 2025: forward 9 March 02:00 EST -> 03:00 EDT; back 2 November 02:00 EDT -> 01:00 EST.
    [
      'America/New_York',
      'daily 02:30 across the spring gap',
      '30 2 * * *',
      '2025-03-07T12:00:00Z',
      ['2025-03-08T07:30:00Z', '2025-03-09T07:30:00Z', '2025-03-10T06:30:00Z'],
    ],
    [
      'America/New_York',
      'daily 01:30 across the autumn overlap',
      '30 1 * * *',
      '2025-11-01T12:00:00Z',
      ['2025-11-02T05:30:00Z', '2025-11-03T06:30:00Z'],
    ],
    [
      'America/New_York',
      'hourly through the overlap',
      '0 * * * *',
      '2025-11-02T03:30:00Z',
      ['2025-11-02T04:00:00Z', '2025-11-02T05:00:00Z', '2025-11-02T07:00:00Z', '2025-11-02T08:00:00Z'],
    ],
    [
      'America/New_York',
      'from inside the repeated hour',
      '*/15 * * * *',
      '2025-11-02T06:10:00Z',
      ['2025-11-02T07:00:00Z', '2025-11-02T07:15:00Z'],
    ],
    [
      'America/New_York',
      'every second at the gap',
      '* * * * * *',
      '2025-03-09T06:59:58Z',
      ['2025-03-09T06:59:59Z', '2025-03-09T07:00:00Z', '2025-03-09T07:00:01Z'],
    ],
    // Australia/Lord_Howe: a 30-minute change (forward 5 October 2025 02:00 +10:30 -> 02:30 +11).
    [
      'Australia/Lord_Howe',
      'daily 02:15 across a 30-minute gap',
      '15 2 * * *',
      '2025-10-03T00:00:00Z',
      ['2025-10-03T15:45:00Z', '2025-10-04T15:45:00Z', '2025-10-05T15:15:00Z'],
    ],
  ])('%s: %s', (timeZone, _what, cron, after, expected) => {
    it(`${cron} after ${after}`, () => {
      expect(iso(nextFireTimes({ cron, timeZone }, at(after), expected.length))).toEqual(expected);
    });
  });

  it('fires at every matching wall-clock time in a month of minutes around a change (brute force, Berlin)', () => {
    // Every minute instant from 20 March to 10 April 2025: a matching wall-clock time that exists
    // fires at its (only) instant; the gap's times appear shifted by an hour.
    const spec = { cron: '*/7 1-4 * * *', timeZone: 'Europe/Berlin' };
    const schedule = parseCron(spec.cron);
    const expected: number[] = [];
    for (let t = at('2025-03-20T00:00:00Z'); t < at('2025-04-10T00:00:00Z'); t += 60_000) {
      const w = wallClockAt(spec.timeZone, t);
      if (schedule.hour.includes(w.hour) && schedule.minute.includes(w.minute)) expected.push(t);
    }
    // The gap (30 March 02:00-02:59 CET) holds 02:00, 02:07, ... 02:56: shifted to 03:00, 03:07, ... 03:56 CEST, already there.
    const got = nextFireTimes(spec, at('2025-03-20T00:00:00Z') - 1, expected.length);
    expect(iso(got)).toEqual(iso(expected));
  });

  it('fires each repeated wall-clock time once, at its first occurrence (brute force, New York)', () => {
    const spec = { cron: '*/10 0-3 * * *', timeZone: 'America/New_York' };
    const schedule = parseCron(spec.cron);
    const seen = new Set<string>();
    const expected: number[] = [];
    for (let t = at('2025-10-30T00:00:00Z'); t < at('2025-11-05T00:00:00Z'); t += 60_000) {
      const w = wallClockAt(spec.timeZone, t);
      const label = JSON.stringify(w);
      if (schedule.hour.includes(w.hour) && schedule.minute.includes(w.minute) && w.second === 0 && !seen.has(label))
        expected.push(t);
      seen.add(label);
    }
    expect(iso(nextFireTimes(spec, at('2025-10-30T00:00:00Z') - 1, expected.length))).toEqual(iso(expected));
  });

  it('refuses a bad schedule, instant or count with a ValidationError naming the field', () => {
    const fieldOf = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).details.field;
      }
      return 'no error';
    };
    expect(fieldOf(() => nextFireTimes({ cron: '61 * * * *', timeZone: 'UTC' }, 0, 1))).toBe('cron');
    expect(fieldOf(() => nextFireTimes({ cron: '* * * * *', timeZone: 'Mars/Olympus' }, 0, 1))).toBe('timeZone');
    expect(fieldOf(() => nextFireTimes({ cron: '* * * * *', timeZone: 'UTC' }, Number.NaN, 1))).toBe('after');
    expect(fieldOf(() => nextFireTimes({ cron: '* * * * *', timeZone: 'UTC' }, -1, 1))).toBe('after');
    expect(fieldOf(() => nextFireTimes({ cron: '* * * * *', timeZone: 'UTC' }, 0, 1001))).toBe('n');
    expect(fieldOf(() => nextFireTimes({ cron: '* * * * *', timeZone: 'UTC' }, 0, 1.5))).toBe('n');
  });

  it('takes a compiled schedule as well as the campaign itself', () => {
    const spec = { cron: '0 12 * * *', timeZone: 'europe/paris' };
    const compiled = compileSchedule(spec);
    expect(compiled.timeZone).toBe('Europe/Paris');
    expect(nextFireTimes(compiled, at('2025-06-01T00:00:00Z'), 2)).toEqual(
      nextFireTimes(spec, at('2025-06-01T00:00:00Z'), 2),
    );
  });
});

describe('offsetAt', () => {
  it('gives the zone offset in ms, DST included', () => {
    expect(offsetAt('Europe/Berlin', at('2025-01-15T12:00:00Z'))).toBe(3_600_000);
    expect(offsetAt('Europe/Berlin', at('2025-07-15T12:00:00Z'))).toBe(7_200_000);
    expect(offsetAt('America/New_York', at('2025-07-15T12:00:00Z'))).toBe(-4 * 3_600_000);
    expect(offsetAt('Asia/Kathmandu', at('2025-07-15T12:00:00Z'))).toBe(5.75 * 3_600_000);
  });
});
