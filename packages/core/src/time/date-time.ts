import { ValidationError } from '../errors';

/**
 * The one parser of dates that arrive from outside (the HTTP API's sendAt,
 * displayAt, createdFrom, createdBefore, after): an RFC 3339 date-time with
 * an explicit offset, calendar-valid, within [MIN_DATE_TIME_MS,
 * MAX_DATE_TIME_MS]. Date.parse is not used on purpose: it accepts date-only
 * strings, RFC 2822 dates, date-times without an offset (read in the local
 * zone) and six-digit years, and it rolls 2027-02-30 over to 2 March.
 */

/** 1970-01-01T00:00:00Z: nothing Herald stores or schedules is older (times are epoch ms from here). */
export const MIN_DATE_TIME_MS = 0;
/** 9999-12-31T23:59:59.999Z: RFC 3339 years have four digits. */
export const MAX_DATE_TIME_MS = 253_402_300_799_999;
/** The longest date-time text worth reading: 9 fraction digits and an offset fit well inside. */
export const MAX_DATE_TIME_CHARS = 64;

// date T time (fraction)? offset; 'T' and 'Z' may be lower case (RFC 3339 section 5.6).
const RFC_3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

export function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The text as it goes into a message: bounded, so a long input does not make a long answer. */
function quoted(raw: string): string {
  return JSON.stringify(raw.length > MAX_DATE_TIME_CHARS ? `${raw.slice(0, MAX_DATE_TIME_CHARS)}...` : raw);
}

/**
 * `raw` as epoch ms, or a ValidationError whose details.field is `field`:
 * e.g. '2027-06-01T12:00:00Z', '2027-06-01T14:00:00.250+02:00'. Fractions
 * finer than a millisecond are cut off; a leap second (:60) is refused, as
 * epoch ms cannot hold it.
 */
export function parseDateTime(raw: string, field: string): number {
  const match = RFC_3339.exec(raw);
  if (match === null) {
    throw new ValidationError(
      `${field} ${quoted(raw)} is not an RFC 3339 date-time with an offset, e.g. 2027-06-01T12:00:00Z or 2027-06-01T14:00:00+02:00`,
      { field },
    );
  }
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const fraction = match[7] === undefined ? 0 : Math.floor(Number(`0${match[7]}`) * 1000);
  if (month < 1 || month > 12)
    throw new ValidationError(`${field} ${quoted(raw)}: there is no month ${month}`, { field });
  if (day < 1 || day > daysInMonth(year, month)) {
    throw new ValidationError(
      `${field} ${quoted(raw)}: ${MONTH_NAMES[month - 1]} ${year} has ${daysInMonth(year, month)} days`,
      { field },
    );
  }
  if (hour > 23 || minute > 59 || second > 59)
    throw new ValidationError(`${field} ${quoted(raw)}: the time of day is not a valid hh:mm:ss`, { field });
  const offsetMinutes = offsetOf(match, raw, field);
  // Date.UTC reads years 0..99 as 1900..1999: all of them before 1970, refused just as well.
  const at = Date.UTC(year, month - 1, day, hour, minute, second, fraction) - offsetMinutes * 60_000;
  if (!(at >= MIN_DATE_TIME_MS && at <= MAX_DATE_TIME_MS)) {
    throw new ValidationError(`${field} ${quoted(raw)} is outside 1970-01-01T00:00:00Z..9999-12-31T23:59:59.999Z`, {
      field,
    });
  }
  return at;
}

/** The offset east of UTC in minutes: 0 for Z (and -00:00, "UTC, local offset unknown"). */
function offsetOf(match: RegExpExecArray, raw: string, field: string): number {
  if (match[8] !== undefined) return 0;
  const hours = Number(match[10]);
  const minutes = Number(match[11]);
  if (hours > 23 || minutes > 59)
    throw new ValidationError(`${field} ${quoted(raw)}: the offset is not a valid ±hh:mm`, { field });
  return (match[9] === '-' ? -1 : 1) * (hours * 60 + minutes);
}

/** An optional date-time: undefined stays undefined. */
export function parseOptionalDateTime(raw: string | undefined, field: string): number | undefined {
  return raw === undefined ? undefined : parseDateTime(raw, field);
}
