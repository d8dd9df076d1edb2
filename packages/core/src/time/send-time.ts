import { ValidationError } from '../errors';
import { parseDateTime } from './date-time';

/**
 * How far in the past a requested send time may be and still mean "now": the
 * client's clock and ours differ, and a request takes time to arrive. Beyond
 * it the request is refused instead of sent at once, as a typo'd date (2026
 * for 2027) must not broadcast immediately.
 */
export const SEND_AT_SKEW_MS = 60_000;

const DAY_MS = 86_400_000;

/** A duration for a message: whole days when it is, else ms. */
function describeSpan(ms: number): string {
  return ms % DAY_MS === 0 ? `${ms / DAY_MS} days` : `${ms} ms`;
}

/**
 * A requested send time (RFC 3339, see parseDateTime) as epoch ms, checked
 * against `now`: at most SEND_AT_SKEW_MS in the past (such a time is
 * answered as is; the caller sends at max(now, sendAt)) and at most
 * `maxAheadMs` (tasks.maxScheduleAheadMs) ahead. Errors name `field`.
 */
export function parseSendAt(raw: string, field: string, now: number, maxAheadMs: number): number {
  const at = parseDateTime(raw, field);
  if (at < now - SEND_AT_SKEW_MS) {
    throw new ValidationError(`${field} ${JSON.stringify(raw)} is in the past: omit ${field} to send now`, {
      field,
      now: new Date(now).toISOString(),
    });
  }
  if (at > now + maxAheadMs) {
    throw new ValidationError(
      `${field} ${JSON.stringify(raw)} is more than ${describeSpan(maxAheadMs)} ahead (tasks.maxScheduleAheadMs)`,
      {
        field,
        latest: new Date(now + maxAheadMs).toISOString(),
      },
    );
  }
  return at;
}
