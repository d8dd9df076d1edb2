/*
 * Quiet hours (docs/local-time.md, "Quiet hours"): a span of each
 * recipient's local day ("22:00-08:00") in which no online push lands. A
 * zone whose recipients would be released inside it is held to its end, or,
 * with `during: 'offline'`, each push that would land inside it is queued to
 * the recipient's offline list instead. A login inside them delivers the
 * inbox unless the account says `loginDelivery: 'hold'`. Pure: the
 * dispatcher applies the hold when it plans a task's groups, the executors
 * the offline queueing per batch and the login rule per walk.
 */
import { ValidationError } from '../errors';
import { formatLocalTime, localInstant, parseLocalTime } from './local-time';
import { checkTimeZone, wallClockAt } from '../campaign/time-zone';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/** What happens to an online push that would land inside quiet hours: held to their end, or queued offline. */
export const QUIET_PUSH_MODES = ['hold', 'offline'] as const;
export type QuietPushMode = (typeof QUIET_PUSH_MODES)[number];

/** What a login inside quiet hours does with the entries of tasks that have them: delivers them, or keeps them. */
export const QUIET_LOGIN_MODES = ['deliver', 'hold'] as const;
export type QuietLoginMode = (typeof QUIET_LOGIN_MODES)[number];

/**
 * Quiet hours as stored: from `from` (inclusive) to `to` (exclusive), local
 * 'HH:MM'; from > to wraps past midnight. `during` and `atLogin` are stored
 * only when they differ from the defaults ('hold', 'deliver'), so quiet hours
 * stored before they existed read the same.
 */
export interface QuietHours {
  from: string;
  to: string;
  /** An online push inside them: 'offline' queues it to the offline list. Absent: 'hold'. */
  during?: 'offline';
  /** A login inside them: 'hold' keeps the task's entry for a login after them (the account's loginDelivery). Absent: 'deliver'. */
  atLogin?: 'hold';
}

const REQUEST_FIELDS = new Set(['hours', 'during']);

/**
 * A request's quiet hours: 'HH:MM-HH:MM' (e.g. '22:00-08:00'), or
 * `{ hours: 'HH:MM-HH:MM', during?: 'hold' | 'offline' }`. Equal ends would
 * cover the whole day (or none of it): refused, as is anything else
 * malformed or unknown, with a ValidationError naming the field (`field`, or
 * `<field>.<name>` for the object form's).
 */
export function parseQuietHours(raw: unknown, field = 'quietHours'): QuietHours {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return parseSpan(raw, field);
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input))
    if (!REQUEST_FIELDS.has(key))
      throw new ValidationError(`${field} has an unknown field ${JSON.stringify(key)}`, { field: `${field}.${key}` });
  if (input.hours === undefined)
    throw new ValidationError(`${field}.hours is required, e.g. '22:00-08:00'`, { field: `${field}.hours` });
  const span = parseSpan(input.hours, `${field}.hours`);
  const during = parseChoice(input.during, QUIET_PUSH_MODES, `${field}.during`) ?? 'hold';
  return during === 'offline' ? { ...span, during } : span;
}

/** 'loginDelivery' of an account's local-time defaults: 'deliver' (the default) or 'hold'. */
export function parseQuietLoginMode(raw: unknown, field = 'loginDelivery'): QuietLoginMode {
  return parseChoice(raw, QUIET_LOGIN_MODES, field) ?? 'deliver';
}

function parseChoice<T extends string>(raw: unknown, choices: readonly T[], field: string): T | undefined {
  if (raw === undefined) return undefined;
  if (!(choices as readonly unknown[]).includes(raw))
    throw new ValidationError(`${field} must be one of ${choices.join(', ')}`, { field });
  return raw as T;
}

/** 'HH:MM-HH:MM' as the span of quiet hours, refusing equal ends. */
function parseSpan(raw: unknown, field: string): QuietHours {
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

/** Quiet hours as a request writes them back: the span, or the object form when `during` is not the default. */
export function quietHoursText(quiet: QuietHours): string | { hours: string; during: QuietPushMode } {
  const hours = `${quiet.from}-${quiet.to}`;
  return quiet.during === undefined ? hours : { hours, during: quiet.during };
}

/** Checks stored quiet hours (the task record's), as the stores do on create. */
export function checkQuietHours(value: unknown, field = 'quietHours'): asserts value is QuietHours {
  const q = value as Partial<QuietHours> | null;
  const ok =
    q !== null &&
    typeof q === 'object' &&
    Object.keys(q).every((key) => ['from', 'to', 'during', 'atLogin'].includes(key)) &&
    typeof q.from === 'string' &&
    typeof q.to === 'string' &&
    (q.during === undefined || q.during === 'offline') &&
    (q.atLogin === undefined || q.atLogin === 'hold');
  if (!ok) throw new ValidationError(`task ${field} is invalid`, { field, value });
  parseSpan(`${q.from}-${q.to}`, field);
}

/** Whether instant `at` is inside the quiet hours in `zone` (an IANA name or '+HH:MM'). */
export function isQuietAt(zone: string, quiet: QuietHours, at: number): boolean {
  return quietHoursEnd(zone, quiet, at) !== at;
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
