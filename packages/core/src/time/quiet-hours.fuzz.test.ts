/**
 * Fuzz tests (fast-check) of the quiet-hours parsers (docs/local-time.md,
 * "Quiet hours"): for any value, parseQuietHours (both request forms) and
 * parseQuietLoginMode either answer a well-formed result or throw
 * VALIDATION_FAILED naming their field (never a TypeError); what they accept
 * round-trips through the stored form's check and quietHoursText, never
 * covers the whole day, and isQuietAt agrees with quietHoursEnd. Runs per
 * property: HERALD_FUZZ_RUNS. docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import {
  checkQuietHours,
  isQuietAt,
  parseQuietHours,
  parseQuietLoginMode,
  quietHoursEnd,
  quietHoursText,
} from './quiet-hours';

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

const twoDigits = fc.integer({ min: 0, max: 25 }).map((n) => String(n).padStart(2, '0'));
const minutes = fc.constantFrom('00', '30', '59', '60', '7');
const span = fc.oneof(
  fc.tuple(twoDigits, minutes, twoDigits, minutes).map(([h1, m1, h2, m2]) => `${h1}:${m1}-${h2}:${m2}`),
  fc.constantFrom('22:00-08:00', '08:00-08:00', '00:00-23:59', '12:00-14:00'),
  fc.string({ maxLength: 12 }),
  fc.anything(),
);
const choice = fc.oneof(fc.constantFrom('hold', 'offline', 'deliver', 'HOLD', '', undefined), fc.anything());
const objectForm = fc.record({ hours: span, during: choice, extra: fc.anything() }, { requiredKeys: [] });

describe('quiet-hours parsers (fuzz)', () => {
  it('parseQuietHours answers quiet hours that round-trip, or refuses naming quietHours or its field', () => {
    fc.assert(
      fc.property(fc.oneof(span, objectForm), (raw) => {
        const got = verdict(() => parseQuietHours(raw), 'quietHours');
        if (got === 'refused') return;
        expect(got.from).not.toBe(got.to);
        expect(got.during === undefined || got.during === 'offline').toBe(true);
        checkQuietHours(got);
        expect(parseQuietHours(quietHoursText(got))).toEqual(got);
        // The object form: the span as hours, during only when it was 'offline'.
        if (typeof raw === 'object' && raw !== null) {
          const input = raw as Record<string, unknown>;
          expect(Object.keys(input).every((key) => key === 'hours' || key === 'during')).toBe(true);
          expect(got.during === 'offline').toBe(input.during === 'offline');
        }
      }),
      settings,
    );
  });

  it('parseQuietLoginMode takes deliver or hold (deliver when absent)', () => {
    fc.assert(
      fc.property(choice, (raw) => {
        const got = verdict(() => parseQuietLoginMode(raw), 'loginDelivery');
        const valid = raw === undefined || raw === 'deliver' || raw === 'hold';
        expect(got !== 'refused').toBe(valid);
        if (got !== 'refused') expect(got).toBe(raw ?? 'deliver');
      }),
      settings,
    );
  });

  it('checkQuietHours refuses stored forms with unknown fields or values', () => {
    fc.assert(
      fc.property(fc.record({ during: choice, atLogin: choice }, { requiredKeys: [] }), (extra) => {
        const stored = { from: '22:00', to: '08:00', ...extra };
        const ok =
          (extra.during === undefined || extra.during === 'offline') &&
          (extra.atLogin === undefined || extra.atLogin === 'hold');
        expect(verdict(() => checkQuietHours(stored), 'quietHours') !== 'refused').toBe(ok);
      }),
      settings,
    );
  });

  it('isQuietAt agrees with quietHoursEnd, and the end is outside the quiet hours', () => {
    const zones = fc.constantFrom('Europe/Berlin', 'America/New_York', 'Asia/Kolkata', '+05:45', '-03:30', 'UTC');
    const at = fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) });
    const quiet = fc
      .tuple(fc.integer({ min: 0, max: 1439 }), fc.integer({ min: 0, max: 1439 }))
      .filter(([a, b]) => a !== b)
      .map(([a, b]) => {
        const hhmm = (m: number) => `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
        return parseQuietHours(`${hhmm(a)}-${hhmm(b)}`);
      });
    fc.assert(
      fc.property(zones, quiet, at, (zone, q, t) => {
        const end = quietHoursEnd(zone, q, t);
        expect(end).toBeGreaterThanOrEqual(t);
        expect(isQuietAt(zone, q, t)).toBe(end !== t);
        // Where no clock change moves the local end (a skipped 'to' is shifted later, maybe into the next quiet span).
        if (!zone.includes('/') || zone === 'Asia/Kolkata') expect(isQuietAt(zone, q, end)).toBe(false);
      }),
      settings,
    );
  });
});
