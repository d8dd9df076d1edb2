/*
 * Local-time delivery (docs/local-time.md): a task that says "09:00 in each
 * recipient's own zone" instead of one instant. This module holds the pure
 * parts: the request's `deliverAt` parsed and checked, a recipient's `tz`
 * attribute (an IANA name or a fixed UTC offset), and the instant a zone's
 * recipients are released at, computed for the target day so daylight saving
 * is honoured. The dispatcher groups the audience by that instant
 * (dispatcher/src/local-groups.ts); the scheduler holds each group's units
 * until it (scheduler/src/local-release.ts).
 */
import { ValidationError } from '../errors';
import { checkTimeZone, offsetAt, wallClockAt } from '../campaign/time-zone';
import { instantOfWallClock } from '../campaign/fire-times';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What happens to the zones whose local time (plus the window) has already passed when the task is planned. */
export const MISSED_POLICIES = ['next_day', 'skip', 'now'] as const;
export type MissedPolicy = (typeof MISSED_POLICIES)[number];

/** The longest window a local-time task may give each zone: a window of a day or more would overlap the next day's release. */
export const MAX_WINDOW_MS = 12 * HOUR_MS;

/** The most groups one task is split into (distinct release instants; the world has about 40 offsets). */
export const MAX_LOCAL_GROUPS = 255;

/** A task's local-time delivery as stored (Task.deliverAt). */
export interface DeliverAt {
  /** The wall-clock time, 'HH:MM' (24 h), at which each recipient's zone is released. */
  localTime: string;
  /** How late after its local time a zone may still be sent to when the task is planned, ms (1 min..12 h). */
  windowMs: number;
  /** The zones past their local time plus the window when the task is planned: next day, never, or at once. */
  missed: MissedPolicy;
  /** The zone of recipients without a `tz` attribute (an IANA name or '+HH:MM'). */
  defaultTimeZone: string;
}

/** The request's form of deliverAt (POST /api/v1/tasks, a campaign template). */
export interface DeliverAtRequest {
  localTime: string;
  window?: string;
  missed?: MissedPolicy;
  defaultTimeZone?: string;
}

/** `deliverAt.window` when the request gives none. */
export const DEFAULT_WINDOW_MS = HOUR_MS;

const DELIVER_AT_FIELDS = new Set(['localTime', 'window', 'missed', 'defaultTimeZone']);

/** Parses and checks a request's deliverAt; every error is a ValidationError naming its field (`deliverAt.<name>`). */
export function parseDeliverAt(raw: unknown, field = 'deliverAt'): DeliverAt {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ValidationError(`${field} must be an object { localTime, window?, missed?, defaultTimeZone? }`, {
      field,
    });
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input))
    if (!DELIVER_AT_FIELDS.has(key))
      throw new ValidationError(`${field} has an unknown field ${JSON.stringify(key)}`, { field: `${field}.${key}` });
  const localTime = formatLocalTime(parseLocalTime(input.localTime, `${field}.localTime`));
  const windowMs = input.window === undefined ? DEFAULT_WINDOW_MS : parseWindow(input.window, `${field}.window`);
  const missed = input.missed ?? 'next_day';
  if (!(MISSED_POLICIES as readonly unknown[]).includes(missed))
    throw new ValidationError(`${field}.missed must be one of ${MISSED_POLICIES.join(', ')}`, {
      field: `${field}.missed`,
    });
  const defaultTimeZone =
    input.defaultTimeZone === undefined ? 'UTC' : parseUserTimeZone(input.defaultTimeZone, `${field}.defaultTimeZone`);
  return { localTime, windowMs, missed: missed as MissedPolicy, defaultTimeZone };
}

/** Checks a stored deliverAt (the task record's), as the stores do on create; the field is `deliverAt`. */
export function checkDeliverAt(value: unknown): asserts value is DeliverAt {
  const stored = value as Partial<DeliverAt> | null;
  const shaped =
    stored !== null &&
    typeof stored === 'object' &&
    Object.keys(stored).every((key) => key === 'windowMs' || DELIVER_AT_FIELDS.has(key)) &&
    !('window' in stored);
  if (
    !shaped ||
    !isWindowMs(stored.windowMs) ||
    !(MISSED_POLICIES as readonly unknown[]).includes(stored.missed) ||
    typeof stored.localTime !== 'string' ||
    formatLocalTimeOrUndefined(stored.localTime) !== stored.localTime ||
    typeof stored.defaultTimeZone !== 'string'
  )
    throw new ValidationError('task deliverAt is invalid', { field: 'deliverAt', value });
  parseUserTimeZone(stored.defaultTimeZone, 'deliverAt.defaultTimeZone');
}

function isWindowMs(ms: unknown): ms is number {
  return Number.isSafeInteger(ms) && (ms as number) >= MINUTE_MS && (ms as number) <= MAX_WINDOW_MS;
}

function formatLocalTimeOrUndefined(raw: string): string | undefined {
  try {
    return formatLocalTime(parseLocalTime(raw, 'localTime'));
  } catch {
    return undefined;
  }
}

/** 'HH:MM' (00:00..23:59, two digits each) as minutes after midnight. */
export function parseLocalTime(raw: unknown, field: string): number {
  const match = typeof raw === 'string' ? /^([01]\d|2[0-3]):([0-5]\d)$/.exec(raw) : null;
  if (match === null)
    throw new ValidationError(`${field} must be a wall-clock time 'HH:MM' from 00:00 to 23:59`, { field });
  return Number(match[1]) * 60 + Number(match[2]);
}

/** Minutes after midnight as 'HH:MM'. */
export function formatLocalTime(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** A window like '2h', '90m' or '1h30m' as ms: 1 minute to 12 hours. */
export function parseWindow(raw: unknown, field: string): number {
  const match = typeof raw === 'string' ? /^(?:(\d{1,2})h)?(?:(\d{1,3})m)?$/.exec(raw) : null;
  if (match === null || raw === '')
    throw new ValidationError(`${field} must be a duration like '2h', '90m' or '1h30m'`, { field });
  const ms = Number(match[1] ?? 0) * HOUR_MS + Number(match[2] ?? 0) * MINUTE_MS;
  if (!isWindowMs(ms))
    throw new ValidationError(`${field} must be from 1 minute to ${MAX_WINDOW_MS / HOUR_MS} hours`, { field });
  return ms;
}

const OFFSET = /^([+-])(\d{2}):(\d{2})$/;

/**
 * A user's `tz` (or a task's default zone): an IANA name, returned in its
 * canonical spelling, or a fixed offset '+HH:MM' / '-HH:MM' within ±14:00
 * (no daylight saving), returned as written. Anything else is refused.
 */
export function parseUserTimeZone(raw: unknown, field: string): string {
  if (typeof raw === 'string') {
    const offset = OFFSET.exec(raw);
    if (offset !== null) {
      const minutes = Number(offset[2]) * 60 + Number(offset[3]);
      if (Number(offset[3]) > 59 || minutes > 14 * 60)
        throw new ValidationError(`${field} '${raw}' is not a UTC offset within -14:00..+14:00`, { field });
      return raw;
    }
  }
  return checkTimeZone(raw, field);
}

/** A fixed offset's minutes ('+05:30' gives 330), or undefined for an IANA name. */
function fixedOffsetMinutes(zone: string): number | undefined {
  const offset = OFFSET.exec(zone);
  if (offset === null) return undefined;
  const minutes = Number(offset[2]) * 60 + Number(offset[3]);
  return offset[1] === '-' ? -minutes : minutes;
}

/** The zone's offset from UTC at an instant, minutes. */
export function zoneOffsetMinutes(zone: string, at: number): number {
  return fixedOffsetMinutes(zone) ?? Math.round(offsetAt(zone, at) / MINUTE_MS);
}

/** The local calendar day (epoch ms of its midnight read as UTC) in the zone at an instant. */
function localDayAt(zone: string, at: number): number {
  const fixed = fixedOffsetMinutes(zone);
  if (fixed !== undefined) return Math.floor((at + fixed * MINUTE_MS) / DAY_MS) * DAY_MS;
  const w = wallClockAt(zone, at);
  return Date.UTC(w.year, w.month - 1, w.day);
}

/**
 * The instant the wall clock of `zone` shows `minutes` on local day `day`.
 * The offset is the one in force then, so a day on which daylight saving
 * starts or ends gets its own offset. A time the clocks skip (02:30 on a
 * spring-forward day) is shifted later by the gap (03:30); a time they pass
 * twice takes the first; as campaigns' fire times do (campaign/fire-times.ts).
 */
export function localInstant(zone: string, day: number, minutes: number): number {
  const local = day + minutes * MINUTE_MS;
  const fixed = fixedOffsetMinutes(zone);
  return fixed === undefined ? instantOfWallClock(zone, local) : local - fixed * MINUTE_MS;
}

/** When one zone's recipients are released, and the offset they are released under. */
export interface ZoneRelease {
  /** Epoch ms; for a skipped zone, the instant it missed. */
  releaseAt: number;
  /** The zone's UTC offset at releaseAt, minutes (east positive). */
  offsetMinutes: number;
  /** Missed with `missed: 'skip'`, or released only after the task expires: never sent. */
  skipped: boolean;
}

/**
 * When a zone's recipients are released for a task planned at `plannedAt`
 * and expiring at `expiresAt`: today's local time in the zone if it is still
 * ahead, or passed by less than the window (then at once: the scheduler
 * finds it due); otherwise as the task's `missed` says: the next local day's,
 * at once, or never. A release at or after expiry is never sent either.
 */
export function zoneRelease(zone: string, deliverAt: DeliverAt, plannedAt: number, expiresAt: number): ZoneRelease {
  const minutes = parseLocalTime(deliverAt.localTime, 'deliverAt.localTime');
  const today = localInstant(zone, localDayAt(zone, plannedAt), minutes);
  let releaseAt = today;
  let skipped = false;
  if (today + deliverAt.windowMs <= plannedAt) {
    if (deliverAt.missed === 'next_day') releaseAt = localInstant(zone, localDayAt(zone, plannedAt) + DAY_MS, minutes);
    else if (deliverAt.missed === 'now') releaseAt = plannedAt;
    else skipped = true;
  }
  if (releaseAt >= expiresAt) skipped = true;
  return { releaseAt, offsetMinutes: zoneOffsetMinutes(zone, releaseAt), skipped };
}

/**
 * Refuses a window the task cannot live through: the task must outlive its
 * send time by more than the window (`ttlSeconds` against `deliverAt.window`).
 */
export function checkWindowWithinLifetime(deliverAt: DeliverAt, sendAt: number, expiresAt: number): void {
  if (deliverAt.windowMs >= expiresAt - sendAt)
    throw new ValidationError('deliverAt.window is longer than the task lives (ttlSeconds)', {
      field: 'deliverAt.window',
      lifetimeSeconds: Math.floor((expiresAt - sendAt) / 1000),
    });
}
