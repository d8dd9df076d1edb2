/*
 * Quiet hours (docs/local-time.md, "Quiet hours"): a span of each
 * recipient's local day ("22:00-08:00") in which no online push lands. A
 * zone whose recipients would be released inside it is held to its end.
 * Pure: the dispatcher applies it when it plans a task's groups.
 */
import { ValidationError } from '../errors';
import { formatLocalTime, localInstant, parseLocalTime } from './local-time';
import { checkTimeZone, wallClockAt } from '../campaign/time-zone';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** Quiet hours as stored: from `from` (inclusive) to `to` (exclusive), local 'HH:MM'; from > to wraps past midnight. */
export interface QuietHours {
  from: string;
  to: string;
}

/**
 * 'HH:MM-HH:MM' (e.g. '22:00-08:00') as quiet hours. Equal ends would cover
 * the whole day (or none of it): refused, as is anything else malformed,
 * with a ValidationError naming `field`.
 */
export function parseQuietHours(raw: unknown, field = 'quietHours'): QuietHours {
  const match = typeof raw === 'string' ? /^(\d\d:\d\d)-(\d\d:\d\d)$/.exec(raw) : null;
  if (match === null)
    throw new ValidationError(`${field} must be 'HH:MM-HH:MM' in the recipient's local time, e.g. '22:00-08:00'`, {
      field,
    });
  const from = parseLocalTime(match[1], field);
  const to = parseLocalTime(match[2], field);
  if (from === to)
    throw new ValidationError(`${field} '${String(raw)}' would cover the whole day: no push could ever land`, {
      field,
    });
  return { from: formatLocalTime(from), to: formatLocalTime(to) };
}

/** Checks stored quiet hours (the task record's), as the stores do on create. */
export function checkQuietHours(value: unknown, field = 'quietHours'): asserts value is QuietHours {
  const q = value as Partial<QuietHours> | null;
  const ok =
    q !== null &&
    typeof q === 'object' &&
    Object.keys(q).every((key) => key === 'from' || key === 'to') &&
    typeof q.from === 'string' &&
    typeof q.to === 'string';
  if (!ok) throw new ValidationError(`task ${field} is invalid`, { field, value });
  parseQuietHours(`${q.from}-${q.to}`, field);
}

/** Minutes after local midnight of an instant in a zone (an IANA name or '+HH:MM'). */
function localMinutesAt(zone: string, at: number): { day: number; minutes: number } {
  const fixed = /^([+-])(\d\d):(\d\d)$/.exec(zone);
  if (fixed !== null) {
    const offset = (Number(fixed[2]) * 60 + Number(fixed[3])) * (fixed[1] === '-' ? -1 : 1);
    const local = at + offset * MINUTE_MS;
    const day = Math.floor(local / DAY_MS) * DAY_MS;
    return { day, minutes: Math.floor((local - day) / MINUTE_MS) };
  }
  const w = wallClockAt(checkTimeZone(zone, 'tz'), at);
  return { day: Date.UTC(w.year, w.month - 1, w.day), minutes: w.hour * 60 + w.minute };
}

/**
 * The first instant at or after `at` outside the quiet hours in `zone`: `at`
 * itself when its local time is outside them, else the local `to` that ends
 * them (the same local day, or the next when they wrap past midnight and
 * `at` is before it), with the offset in force then.
 */
export function quietHoursEnd(zone: string, quiet: QuietHours, at: number): number {
  const from = parseLocalTime(quiet.from, 'quietHours');
  const to = parseLocalTime(quiet.to, 'quietHours');
  const { day, minutes } = localMinutesAt(zone, at);
  const wraps = from > to;
  const inside = wraps ? minutes >= from || minutes < to : minutes >= from && minutes < to;
  if (!inside) return at;
  const endDay = wraps && minutes >= from ? day + DAY_MS : day;
  return Math.max(at, localInstant(zone, endDay, to));
}
