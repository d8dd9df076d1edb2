import { ValidationError } from '../errors';

const MS_PER_DAY = 86_400_000;
const MS_PER_MINUTE = 60_000;

/**
 * One local day of the quotas: [from, to) in epoch ms, and its number (days
 * since 1970-01-01 in the local zone). The same convention as the C-side
 * frequency policy (core/frequency `dayOf`): a fixed offset from UTC in
 * minutes (`accounts.utcOffsetMinutes`, 480 for UTC+8), no daylight saving,
 * so every day is 24 hours and every process cuts days at the same instants.
 */
export interface AccountDay {
  readonly day: number;
  readonly from: number;
  readonly to: number;
}

/** The local day holding instant `at`. */
export function accountDayOf(utcOffsetMinutes: number, at: number): AccountDay {
  if (!Number.isSafeInteger(at) || at < 0)
    throw new ValidationError('a quota time must be a non-negative integer of epoch ms', { field: 'at', value: at });
  const offsetMs = utcOffsetMinutes * MS_PER_MINUTE;
  const day = Math.floor((at + offsetMs) / MS_PER_DAY);
  const from = day * MS_PER_DAY - offsetMs;
  return { day, from, to: from + MS_PER_DAY };
}

/** Fails VALIDATION_FAILED unless `day` is a well-formed day that holds `at`. */
export function checkAccountDay(day: AccountDay, at: number): void {
  const ok =
    day !== null &&
    typeof day === 'object' &&
    Number.isSafeInteger(day.from) &&
    day.to - day.from === MS_PER_DAY &&
    at >= day.from &&
    at < day.to;
  if (!ok)
    throw new ValidationError('day must be the 24-hour day [from, to) that holds the send time', { field: 'day' });
}
