import { AccountQuotaError, ValidationError } from '../errors';
import { admit, type AccountUsage, type QuotaRefusal } from './admit';
import { checkAccountDay, type AccountDay } from './day';
import {
  checkClickThroughRate,
  checkLimitsOverride,
  LIMIT_MAX,
  LIMIT_NAMES,
  type AccountLimits,
  type AccountLimitsOverride,
} from './limits';
import { parseUserTimeZone } from '../time/local-time';
import { checkQuietHours, parseQuietLoginMode, type QuietHours } from '../time/quiet-hours';

/** What an admin set for one account (docs/account-quotas.md); absent: the defaults, no rate known. */
export interface AccountSettings {
  readonly accountId: string;
  /** Overrides of `accounts.defaultLimits`, field by field; {} keeps the defaults. */
  readonly limits: AccountLimitsOverride;
  /** The click-through rate of the account's last broadcast (clicks / delivered), from the analytics side; null: unknown. */
  readonly clickThroughRate: number | null;
  /** Local-time delivery's account defaults (docs/local-time.md); absent: none set. */
  readonly localTime?: AccountLocalTime;
  readonly updatedAt: number;
}

/**
 * An account's local-time defaults: the zone of its recipients without a
 * `tz` (a task's deliverAt.defaultTimeZone when the task names none), and
 * quiet hours every task of the account keeps unless it sets its own.
 */
export interface AccountLocalTime {
  readonly defaultTimeZone: string | null;
  readonly quietHours: QuietHours | null;
  /**
   * A login inside a task's quiet hours: 'hold' keeps that task's entry for a
   * login after them. Stored only when 'hold' (absent: 'deliver', so
   * settings written before it read the same).
   */
  readonly loginDelivery?: 'hold';
}

/** A checked AccountLocalTime (an IANA name or '+HH:MM'; quiet hours as stored): VALIDATION_FAILED naming the field. */
export function checkAccountLocalTime(value: unknown): AccountLocalTime {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ValidationError('localTime must be an object { defaultTimeZone, quietHours }', { field: 'localTime' });
  const { defaultTimeZone, quietHours, loginDelivery, ...rest } = value as Record<string, unknown>;
  const extra = Object.keys(rest);
  if (extra.length > 0) throw new ValidationError(`${extra[0]} is not a local-time setting`, { field: extra[0] });
  const zone =
    defaultTimeZone === null || defaultTimeZone === undefined
      ? null
      : parseUserTimeZone(defaultTimeZone, 'defaultTimeZone');
  if (quietHours !== null && quietHours !== undefined) checkQuietHours(quietHours);
  const login = parseQuietLoginMode(loginDelivery ?? undefined);
  return {
    defaultTimeZone: zone,
    quietHours: quietHours === null || quietHours === undefined ? null : { ...(quietHours as QuietHours) },
    ...(login === 'hold' ? { loginDelivery: login } : {}),
  };
}

/** A change to one account's settings: each field given replaces the stored one; a missing field keeps it. */
export interface AccountSettingsPatch {
  /** The whole override ({} clears it). */
  readonly limits?: AccountLimitsOverride;
  readonly clickThroughRate?: number | null;
  /** The whole local-time defaults (both null: none). */
  readonly localTime?: AccountLocalTime;
}

/**
 * One broadcast taking room in its account's quotas. `key` names the
 * broadcast (the task's idempotency key, or a one-off id): a second
 * reservation with the same key is answered, never counted again.
 */
export interface BroadcastReservation {
  readonly accountId: string;
  readonly key: string;
  /** When the broadcast sends (epoch ms): the day it counts on, and its place for the interval. */
  readonly sendAt: number;
  /** Its list's size. */
  readonly recipients: number;
  /** When it is reserved (epoch ms); reservations sent more than RESERVATION_RETENTION_MS before it are forgotten. */
  readonly at: number;
  /** The speed its task asks for (recipients/s); absent: none. Decided by maxSpeed before anything is reserved (speed.ts). */
  readonly speed?: number;
}

export type ReserveResult =
  /** Counted now, or (repeated) by an earlier call with the same key; `usage` includes it. */
  | { readonly admitted: true; readonly repeated: boolean; readonly usage: AccountUsage }
  /** Nothing was recorded. */
  | { readonly admitted: false; readonly refusal: QuotaRefusal; readonly usage: AccountUsage };

export const MAX_ACCOUNT_ID_CHARS = 255;
export const MAX_RESERVATION_KEY_CHARS = 255;

/**
 * How long a reservation is kept after its send time. Quotas look at one day
 * and intervals at most one day either side; a campaign fires at most
 * `campaigns.misfireGraceMs` (<= 1 day) late. Three days leave room for all.
 */
export const RESERVATION_RETENTION_MS = 3 * 86_400_000;

const isTime = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;

export function checkAccountId(accountId: unknown): string {
  if (typeof accountId !== 'string' || accountId === '' || [...accountId].length > MAX_ACCOUNT_ID_CHARS) {
    throw new ValidationError(`accountId must be a string of 1..${MAX_ACCOUNT_ID_CHARS} characters`, {
      field: 'accountId',
    });
  }
  return accountId;
}

export function checkReservationKey(key: unknown): string {
  if (typeof key !== 'string' || key === '' || [...key].length > MAX_RESERVATION_KEY_CHARS) {
    throw new ValidationError(`a reservation key must be a string of 1..${MAX_RESERVATION_KEY_CHARS} characters`, {
      field: 'key',
    });
  }
  return key;
}

export function checkQuotaTime(field: string, value: unknown): number {
  if (!isTime(value))
    throw new ValidationError(`${field} must be a non-negative integer of epoch ms`, { field, value });
  return value;
}

/** Checks a reservation, the limits it is decided by, and that `day` holds its send time. */
export function checkReservation(reservation: BroadcastReservation, limits: AccountLimits, day: AccountDay): void {
  if (reservation === null || typeof reservation !== 'object')
    throw new ValidationError('a reservation must be an object', { field: 'reservation' });
  checkAccountId(reservation.accountId);
  checkReservationKey(reservation.key);
  checkQuotaTime('sendAt', reservation.sendAt);
  checkQuotaTime('at', reservation.at);
  if (
    !Number.isSafeInteger(reservation.recipients) ||
    reservation.recipients < 0 ||
    reservation.recipients > LIMIT_MAX.dailyRecipients
  ) {
    throw new ValidationError(`recipients must be an integer in [0, ${LIMIT_MAX.dailyRecipients}]`, {
      field: 'recipients',
    });
  }
  checkLimitsOverride(limits, 'limits');
  // Exactly the quota limits: the confirmation limits an override may also name are not decided here.
  const keys = Object.keys(limits);
  if (keys.length !== LIMIT_NAMES.length || !LIMIT_NAMES.every((name) => keys.includes(name))) {
    throw new ValidationError(`limits must name ${LIMIT_NAMES.join(', ')}`, { field: 'limits' });
  }
  checkAccountDay(day, reservation.sendAt);
}

/** The settings after `patch`, checked; `current` undefined: an account never set before. */
export function applySettingsPatch(
  accountId: string,
  current: AccountSettings | undefined,
  patch: AccountSettingsPatch,
  now: number,
): AccountSettings {
  checkAccountId(accountId);
  checkQuotaTime('now', now);
  if (patch === null || typeof patch !== 'object')
    throw new ValidationError('a settings patch must be an object', { field: 'patch' });
  for (const key of Object.keys(patch))
    if (key !== 'limits' && key !== 'clickThroughRate' && key !== 'localTime')
      throw new ValidationError(`${key} is not an account setting`, { field: key });
  return {
    accountId,
    limits: patch.limits === undefined ? (current?.limits ?? {}) : checkLimitsOverride(patch.limits),
    clickThroughRate:
      patch.clickThroughRate === undefined
        ? (current?.clickThroughRate ?? null)
        : checkClickThroughRate(patch.clickThroughRate),
    ...localTimeAfter(current, patch),
    updatedAt: now,
  };
}

/** The local-time defaults after a patch, as a field only when any is set: settings without them read as before. */
function localTimeAfter(
  current: AccountSettings | undefined,
  patch: AccountSettingsPatch,
): { localTime?: AccountLocalTime } {
  const next = patch.localTime === undefined ? current?.localTime : checkAccountLocalTime(patch.localTime);
  const none = next === undefined || (next.defaultTimeZone === null && next.quietHours === null && !next.loginDelivery);
  return none ? {} : { localTime: next };
}

/**
 * What an adapter answers once it holds the account's lock and has read its
 * usage: `existing` is the send time stored under the reservation's key, if
 * any. Adapters record the reservation exactly when this says admitted and
 * not repeated.
 */
export function decideReservation(
  reservation: BroadcastReservation,
  limits: AccountLimits,
  day: AccountDay,
  usage: AccountUsage,
  existing: boolean,
): ReserveResult {
  if (existing) return { admitted: true, repeated: true, usage };
  const admission = admit(limits, usage, reservation, day);
  if (!admission.ok) return { admitted: false, refusal: admission.refusal, usage };
  return { admitted: true, repeated: false, usage: usageWith(usage, reservation) };
}

/** `usage` with one more broadcast of `reservation` (in its day; its send time the nearest on both sides). */
function usageWith(usage: AccountUsage, reservation: BroadcastReservation): AccountUsage {
  return {
    broadcasts: usage.broadcasts + 1,
    recipients: usage.recipients + reservation.recipients,
    previousSendAt: reservation.sendAt,
    nextSendAt: reservation.sendAt,
  };
}

/** The API's error for a refusal (ACCOUNT_QUOTA_EXCEEDED, docs/account-quotas.md). */
export function quotaExceeded(accountId: string, refusal: QuotaRefusal): AccountQuotaError {
  const { message, ...details } = refusal;
  return new AccountQuotaError(accountId, message, details);
}
