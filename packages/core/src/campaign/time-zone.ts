/*
 * IANA time zones through the JavaScript Intl API (pure: ICU's zone data
 * ships inside Node, nothing is read at run time). Campaigns fire at wall-clock
 * times of their zone; these helpers turn instants into wall-clock times and
 * give the zone's UTC offset at an instant.
 */
import { ValidationError } from '../errors';

/** The longest time zone name accepted (the stores keep it in a 64-character column). */
export const MAX_TIME_ZONE_CHARS = 64;

/** The wall-clock time at an instant in a zone; month 1-12. */
export interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

// One formatter per zone: building one costs far more than using it. Only
// zones that validated are cached, and there are a few hundred of them.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
      era: 'short',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

// Names already checked, as given, to their canonical spelling: a user upload
// checks each user's `tz`, and building a formatter to ask ICU costs a
// quarter of a millisecond, most of a 10,000-user put. Capped: spellings are
// the caller's (any case), so a flood of new ones only stops being cached.
const canonicalNames = new Map<string, string>();
const MAX_CACHED_NAMES = 4096;

/**
 * Checks an IANA time zone name ('Europe/Berlin', 'America/New_York', 'UTC')
 * and returns its canonical spelling (case fixed: 'europe/berlin' gives
 * 'Europe/Berlin'). Anything the runtime's zone database does not know is a
 * ValidationError with field `field`.
 */
export function checkTimeZone(value: unknown, field = 'timeZone'): string {
  if (typeof value !== 'string' || value === '')
    throw new ValidationError(`${field} must be a non-empty IANA time zone name, e.g. Europe/Berlin`, { field });
  if (value.length > MAX_TIME_ZONE_CHARS)
    throw new ValidationError(`${field} is longer than ${MAX_TIME_ZONE_CHARS} characters`, { field });
  // Names are letters, digits and _ / + - only; anything else (offsets like +01:00 included) is refused
  // before ICU sees it, so what is accepted does not depend on the Node version's Intl.
  if (!/^[A-Za-z][A-Za-z0-9_/+-]*$/.test(value))
    throw new ValidationError(`${field} '${value}' is not an IANA time zone name, e.g. Europe/Berlin`, { field });
  const known = canonicalNames.get(value);
  if (known !== undefined) return known;
  let canonical: string;
  try {
    canonical = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new ValidationError(`${field} '${value}' is not a known IANA time zone`, { field });
  }
  formatterOf(canonical);
  if (canonicalNames.size < MAX_CACHED_NAMES) canonicalNames.set(value, canonical);
  return canonical;
}

/** The wall-clock time at instant `ms` (epoch ms, whole seconds counted) in a zone checked by checkTimeZone. */
export function wallClockAt(timeZone: string, ms: number): WallClock {
  const out: WallClock = { year: 0, month: 0, day: 0, hour: 0, minute: 0, second: 0 };
  let bc = false;
  for (const part of formatterOf(timeZone).formatToParts(ms)) {
    switch (part.type) {
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        out[part.type] = Number(part.value);
        break;
      case 'era':
        bc = part.value === 'BC' || part.value === 'B';
        break;
      default:
        break;
    }
  }
  if (bc) out.year = 1 - out.year;
  return out;
}

/** Wall-clock fields read as if they were UTC, in epoch ms. */
export function wallClockAsUtc(w: WallClock): number {
  const ms = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second);
  // Date.UTC maps years 0-99 to 1900-1999.
  return w.year >= 0 && w.year < 100 ? new Date(ms).setUTCFullYear(w.year) : ms;
}

/** The zone's offset from UTC at instant `ms`, in ms (Berlin in summer: +7,200,000). */
export function offsetAt(timeZone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallClockAsUtc(wallClockAt(timeZone, whole)) - whole;
}
