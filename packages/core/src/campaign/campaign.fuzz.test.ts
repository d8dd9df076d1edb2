/**
 * Fuzz tests (fast-check) of campaign input: cron expressions and time zones
 * come from operators through the API (and while they type, through the
 * preview), so for any string the parser gives a schedule or a
 * ValidationError naming `cron` / `timeZone`, never a TypeError, RangeError
 * or a hang; and every schedule it accepts gives fire times that are
 * ascending, after `after`, whole seconds, and matching the expression on
 * the zone's wall clock (or a DST-gap shift of it). A template's no-resend
 * scope gives a copy or a ValidationError naming `template.noResend` or one of
 * its fields, and an accepted one looks back to an instant at or before the
 * firing, never before the epoch.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). Replay a failure with
 * the printed seed and path: fc.assert(property, { seed, path }). docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ValidationError } from '../errors';
import { parseCron } from './cron';
import { nextFireTimes } from './fire-times';
import { planFirings } from './misfire';
import { checkNoResend, noResendSince, NO_RESEND_SCOPES } from './no-resend';
import { checkTimeZone, offsetAt, wallClockAt } from './time-zone';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

/** Only the typed error: a ValidationError naming one of `fields`. */
function onlyValidationError(fn: () => unknown, fields: string[]): boolean {
  try {
    fn();
    return true;
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    if (!fields.includes(error.details.field as string))
      throw new Error(`unexpected field ${String(error.details.field)}`);
    return false;
  }
}

const ZONES = [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'America/Santiago',
  'Africa/Casablanca',
];

/** Tokens that make near-valid fields: numbers (some out of range), names, *, ?, steps, ranges, the unsupported L W #. */
const atom = fc.oneof(
  fc.integer({ min: 0, max: 70 }).map(String),
  fc.constantFrom(
    '*',
    '?',
    'mon',
    'FRI',
    'sunday',
    'jan',
    'Dec',
    'L',
    'W',
    '5W',
    '1#2',
    '7',
    '0',
    '00',
    '99999999999999999999',
  ),
);
const item = fc.oneof(
  atom,
  fc.tuple(atom, atom).map(([a, b]) => `${a}-${b}`),
  fc.tuple(atom, fc.integer({ min: 0, max: 70 })).map(([a, s]) => `${a}/${s}`),
  fc.tuple(atom, atom, fc.integer({ min: 0, max: 70 })).map(([a, b, s]) => `${a}-${b}/${s}`),
);
const field = fc.array(item, { minLength: 1, maxLength: 3 }).map((items) => items.join(','));
const nearCron = fc.oneof(
  fc.array(field, { minLength: 4, maxLength: 7 }).map((fields) => fields.join(' ')),
  fc.constantFrom('@daily', '@HOURLY', '@never', ' @weekly ', '', '__proto__', 'constructor', 'toString'),
);
/** Expressions built to be valid: values inside each field's range. */
const validCron = fc
  .tuple(
    fc.constantFrom('0', '*/15', '10,40'),
    fc.oneof(fc.integer({ min: 0, max: 59 }).map(String), fc.constant('*/7'), fc.constant('*')),
    fc.oneof(fc.integer({ min: 0, max: 23 }).map(String), fc.constant('1-4'), fc.constant('22-2'), fc.constant('*')),
    fc.oneof(fc.integer({ min: 1, max: 28 }).map(String), fc.constant('*'), fc.constant('?')),
    fc.oneof(fc.integer({ min: 1, max: 12 }).map(String), fc.constant('*'), fc.constant('mar-oct')),
    fc.oneof(fc.integer({ min: 0, max: 7 }).map(String), fc.constant('*'), fc.constant('mon-fri'), fc.constant('6-1')),
  )
  .map((fields) => fields.join(' '));

describe('campaign input (fuzz)', () => {
  it('parseCron: any string gives a schedule or a ValidationError naming cron', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 80 }), nearCron),
        (text) => {
          if (onlyValidationError(() => parseCron(text), ['cron'])) {
            const schedule = parseCron(text);
            for (const values of Object.values(schedule)) expect(values.length).toBeGreaterThan(0);
          }
        },
      ),
      settings,
    );
  });

  it('parseCron: any value at all (not only strings) gives the typed error', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => void onlyValidationError(() => parseCron(value), ['cron'])),
      settings,
    );
  });

  it('checkTimeZone: any string gives a canonical zone or a ValidationError naming timeZone', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 80 }),
          fc.constantFrom(...ZONES, 'utc', 'Etc/GMT-14', 'Europe/Berlin/', 'Europe//Berlin', 'EST5EDT'),
          fc.anything(),
        ),
        (value) => {
          if (onlyValidationError(() => checkTimeZone(value), ['timeZone'])) {
            const canonical = checkTimeZone(value);
            expect(checkTimeZone(canonical)).toBe(canonical);
          }
        },
      ),
      settings,
    );
  });

  it('nextFireTimes: any input gives fire times or a ValidationError; fire times are ascending, later, whole seconds and match', () => {
    fc.assert(
      fc.property(
        fc.oneof(validCron, nearCron),
        fc.oneof(fc.constantFrom(...ZONES), fc.string({ maxLength: 20 })),
        fc.oneof(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.double()),
        fc.oneof(fc.integer({ min: 0, max: 12 }), fc.integer()),
        (cron, timeZone, after, n) => {
          if (
            !onlyValidationError(() => nextFireTimes({ cron, timeZone }, after, n), ['cron', 'timeZone', 'after', 'n'])
          )
            return;
          const times = nextFireTimes({ cron, timeZone }, after, n);
          const schedule = parseCron(cron);
          const zone = checkTimeZone(timeZone);
          let previous = after;
          for (const t of times) {
            expect(t).toBeGreaterThan(previous);
            expect(t % 1000).toBe(0);
            previous = t;
            const w = wallClockAt(zone, t);
            const matches =
              schedule.second.includes(w.second) &&
              schedule.minute.includes(w.minute) &&
              schedule.hour.includes(w.hour);
            // A time shifted out of a DST gap reads later than the expression says; the offset just changed there.
            if (!matches) expect(offsetAt(zone, t)).not.toBe(offsetAt(zone, t - 6 * 3_600_000));
          }
        },
      ),
      settings,
    );
  });

  it('planFirings: fires at most one time, the latest, and misses only earlier or late ones', () => {
    fc.assert(
      fc.property(
        validCron,
        fc.constantFrom(...ZONES),
        fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }),
        fc.integer({ min: 0, max: 3 * 86_400_000 }),
        fc.integer({ min: 1000, max: 3_600_000 }),
        (cron, timeZone, last, gap, graceMs) => {
          const now = last + gap;
          const p = planFirings({ schedule: { cron, timeZone }, lastScheduledAt: last, activeFrom: 0, now, graceMs });
          const handled = [...p.missed, ...(p.fire === undefined ? [] : [p.fire])];
          for (const t of handled) expect(t > last && t <= now).toBe(true);
          if (p.fire !== undefined) {
            expect(now - p.fire).toBeLessThan(graceMs);
            expect(p.fire).toBe(p.advanceTo);
          }
          expect(handled.length === 0).toBe(p.advanceTo === undefined);
        },
      ),
      { numRuns: Math.min(RUNS, 100) },
    );
  });

  it('checkNoResend: any value gives a scope or a ValidationError naming template.noResend or its field', () => {
    const window = fc.oneof(
      fc.string({ maxLength: 12 }),
      fc
        .tuple(fc.integer({ min: -2, max: 600_000 }), fc.constantFrom('m', 'h', 'd', 'w', 'D', '', ' d'))
        .map(([n, unit]) => `${n}${unit}`),
      fc.anything(),
    );
    const nearNoResend = fc.oneof(
      fc.record(
        { scope: fc.oneof(fc.constantFrom(...NO_RESEND_SCOPES, 'daily', 'Window', ''), fc.anything()), window },
        { requiredKeys: [] },
      ),
      fc.dictionary(fc.constantFrom('scope', 'window', 'every', '__proto__', 'constructor'), fc.anything()),
      fc.anything(),
    );
    const fields = ['template.noResend', 'template.noResend.scope', 'template.noResend.window'];
    fc.assert(
      fc.property(
        nearNoResend,
        fc.integer({ min: 0, max: 4_102_444_800_000 }),
        fc.constantFrom(...ZONES),
        (value, scheduledAt, timeZone) => {
          let scope: ReturnType<typeof checkNoResend>;
          try {
            scope = checkNoResend(value);
          } catch (error) {
            if (!(error instanceof ValidationError)) throw error;
            const field = error.details.field as string;
            if (!fields.includes(field) && !field.startsWith('template.noResend.'))
              throw new Error(`unexpected field ${field}`);
            return;
          }
          const since = noResendSince(scope, scheduledAt, timeZone);
          if (scope.scope === 'content') expect(since).toBeUndefined();
          else {
            expect(since).toBeGreaterThanOrEqual(0);
            expect(since).toBeLessThanOrEqual(scheduledAt);
          }
        },
      ),
      settings,
    );
  });
});
