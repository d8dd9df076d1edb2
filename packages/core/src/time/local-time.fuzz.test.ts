/**
 * Fuzz tests (fast-check) of local-time delivery's parsers (docs/local-time.md):
 * for any value, parseDeliverAt, parseLocalTime, parseWindow and
 * parseUserTimeZone either answer a well-formed result or throw
 * VALIDATION_FAILED naming their field (never a TypeError); what they accept
 * round-trips through the stored form's check. Runs per property:
 * HERALD_FUZZ_RUNS. docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import {
  checkDeliverAt,
  MAX_WINDOW_MS,
  parseDeliverAt,
  parseLocalTime,
  parseUserTimeZone,
  parseWindow,
  zoneRelease,
} from './local-time';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

/** Runs `parse`; a refusal must be a ValidationError whose field starts with `field`. */
function verdict<T>(parse: () => T, field: string): T | 'refused' {
  try {
    return parse();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    expect(String((error as ValidationError).details.field)).toMatch(new RegExp(`^${field}`));
    return 'refused';
  }
}

const twoDigits = fc.integer({ min: 0, max: 99 }).map((n) => String(n).padStart(2, '0'));
const timeLike = fc.oneof(
  fc.tuple(twoDigits, twoDigits).map(([h, m]) => `${h}:${m}`),
  fc.string({ maxLength: 8 }),
  fc.anything(),
);
const windowLike = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 900 })).map(([h, m]) => `${h}h${m}m`),
  fc.integer({ min: 0, max: 900 }).map((m) => `${m}m`),
  fc.integer({ min: 0, max: 30 }).map((h) => `${h}h`),
  fc.string({ maxLength: 8 }),
  fc.anything(),
);
const zoneLike = fc.oneof(
  fc.constantFrom('Europe/Berlin', 'america/new_york', 'UTC', 'Asia/Kolkata', 'Mars/Olympus', '', 'Etc/GMT+5'),
  fc.tuple(fc.constantFrom('+', '-', '±'), twoDigits, twoDigits).map(([sign, h, m]) => `${sign}${h}:${m}`),
  fc.string({ maxLength: 70 }),
  fc.anything(),
);

describe('local-time parsers (fuzz)', () => {
  it('parseLocalTime takes exactly HH:MM from 00:00 to 23:59', () => {
    fc.assert(
      fc.property(timeLike, (raw) => {
        const got = verdict(() => parseLocalTime(raw, 'localTime'), 'localTime');
        const valid = typeof raw === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(raw);
        expect(got === 'refused').toBe(!valid);
        if (got !== 'refused' && typeof raw === 'string')
          expect(got).toBe(Number(raw.slice(0, 2)) * 60 + Number(raw.slice(3)));
      }),
      settings,
    );
  });

  it('parseWindow answers 1 minute..12 hours or refuses naming the field', () => {
    fc.assert(
      fc.property(windowLike, (raw) => {
        const got = verdict(() => parseWindow(raw, 'window'), 'window');
        if (got !== 'refused') {
          expect(Number.isSafeInteger(got)).toBe(true);
          expect(got).toBeGreaterThanOrEqual(60_000);
          expect(got).toBeLessThanOrEqual(MAX_WINDOW_MS);
        }
      }),
      settings,
    );
  });

  it('parseUserTimeZone answers a zone whose offset is computable, or refuses naming the field', () => {
    fc.assert(
      fc.property(zoneLike, (raw) => {
        const got = verdict(() => parseUserTimeZone(raw, 'tz'), 'tz');
        if (got === 'refused') return;
        // What is accepted is accepted again as is, and gives an instant for any day.
        expect(parseUserTimeZone(got, 'tz')).toBe(got);
        const deliverAt = {
          localTime: '09:00',
          windowMs: 3_600_000,
          missed: 'next_day' as const,
          defaultTimeZone: got,
        };
        const release = zoneRelease(got, deliverAt, Date.UTC(2026, 2, 29, 0, 30), Date.UTC(2026, 3, 5));
        expect(Number.isSafeInteger(release.releaseAt)).toBe(true);
        expect(Math.abs(release.offsetMinutes)).toBeLessThanOrEqual(14 * 60);
      }),
      settings,
    );
  });

  it('parseDeliverAt answers a stored form its own check accepts, or refuses naming a deliverAt field', () => {
    const request = fc.oneof(
      fc.record(
        {
          localTime: timeLike,
          window: windowLike,
          missed: fc.constantFrom('next_day', 'skip', 'now', 'later'),
          defaultTimeZone: zoneLike,
        },
        { requiredKeys: ['localTime'] },
      ),
      fc.dictionary(fc.string({ maxLength: 12 }), fc.anything(), { maxKeys: 4 }),
      fc.anything(),
    );
    fc.assert(
      fc.property(request, (raw) => {
        const got = verdict(() => parseDeliverAt(raw), 'deliverAt');
        if (got !== 'refused') expect(() => checkDeliverAt(got)).not.toThrow();
      }),
      settings,
    );
  });
});
