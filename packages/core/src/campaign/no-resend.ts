/*
 * A campaign's no-resend scope (docs/campaigns.md, "No-resend scope"): what
 * the dispatcher's no-resend link counts as "already sent" for a firing's
 * task. The link always compares the content (its CRC); the scope decides how
 * far back it looks, as an instant the task carries (Task.noResendSince):
 *
 *   content  every earlier send of the same content (the default; one-off sends)
 *   firing   none before this firing: each firing is new content (a daily digest)
 *   window   the sends scheduled within the window before this firing
 *
 * A window is a whole number of minutes (`90m`), hours (`12h`) or days (`7d`).
 * Days are calendar days on the campaign's wall clock, so a `7d` window of a
 * daily 09:00 campaign ends at 09:00 a week earlier whatever DST did between.
 */
import { ValidationError } from '../errors';
import { instantOfWallClock } from './fire-times';
import { wallClockAsUtc, wallClockAt } from './time-zone';

export const NO_RESEND_SCOPES = ['content', 'firing', 'window'] as const;
export type NoResendScope = (typeof NO_RESEND_SCOPES)[number];

export type NoResend = { scope: 'content' } | { scope: 'firing' } | { scope: 'window'; window: string };

/** The longest window: a year and a day, in each unit. */
export const MAX_NO_RESEND_WINDOW = { m: 366 * 24 * 60, h: 366 * 24, d: 366 } as const;
type WindowUnit = keyof typeof MAX_NO_RESEND_WINDOW;

export interface NoResendWindow {
  amount: number;
  unit: WindowUnit;
}

const MINUTE_MS = 60_000;
const UNIT_MS: Record<Exclude<WindowUnit, 'd'>, number> = { m: MINUTE_MS, h: 60 * MINUTE_MS };
const DAY_MS = 86_400_000;

const fail = (field: string, message: string): never => {
  throw new ValidationError(`${field} ${message}`, { field });
};

/** Parses a window (`90m`, `12h`, `7d`); anything else is a ValidationError naming `field`. */
export function parseNoResendWindow(value: unknown, field = 'template.noResend.window'): NoResendWindow {
  const match = typeof value === 'string' ? /^([1-9][0-9]{0,5})([mhd])$/.exec(value) : null;
  if (match === null) return fail(field, "must be a whole number of minutes, hours or days: '90m', '12h', '7d'");
  const amount = Number(match[1]);
  const unit = match[2] as WindowUnit;
  if (amount > MAX_NO_RESEND_WINDOW[unit])
    fail(field, `is longer than a year and a day (at most ${MAX_NO_RESEND_WINDOW[unit]}${unit})`);
  return { amount, unit };
}

/**
 * Checks a template's `noResend` and returns a copy. Strict like the API: an
 * unknown scope, a window on a scope that has none, a missing or bad window
 * and any unknown field are ValidationErrors naming the field.
 */
export function checkNoResend(value: unknown, field = 'template.noResend'): NoResend {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return fail(field, "must be an object: { scope: 'content' | 'firing' | 'window', window? }");
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (key !== 'scope' && key !== 'window') fail(`${field}.${key}`, 'is not a field of noResend (scope, window)');
  }
  const scope = record.scope;
  if (!NO_RESEND_SCOPES.includes(scope as NoResendScope))
    fail(`${field}.scope`, `must be one of ${NO_RESEND_SCOPES.map((s) => `'${s}'`).join(', ')}`);
  if (scope !== 'window') {
    if (record.window !== undefined)
      fail(`${field}.window`, `is only for scope 'window' (scope is '${String(scope)}')`);
    return { scope: scope as 'content' | 'firing' };
  }
  if (record.window === undefined) fail(`${field}.window`, "is required with scope 'window', e.g. '7d'");
  parseNoResendWindow(record.window, `${field}.window`);
  return { scope: 'window', window: record.window as string };
}

/**
 * The instant a firing's task counts earlier sends from (Task.noResendSince:
 * sends scheduled after it count as already sent), or undefined for every
 * earlier send (scope content, and a template without a scope).
 */
export function noResendSince(
  noResend: NoResend | undefined,
  scheduledAt: number,
  timeZone: string,
): number | undefined {
  if (noResend === undefined || noResend.scope === 'content') return undefined;
  if (noResend.scope === 'firing') return scheduledAt;
  const { amount, unit } = parseNoResendWindow(noResend.window);
  if (unit !== 'd') return Math.max(0, scheduledAt - amount * UNIT_MS[unit]);
  // Whole seconds, as firings are: the wall clock is read in seconds.
  const local = wallClockAsUtc(wallClockAt(timeZone, scheduledAt)) + (scheduledAt % 1000);
  return Math.max(0, instantOfWallClock(timeZone, local - amount * DAY_MS));
}
