/**
 * @module @herald/core/time
 *
 * Dates from outside (the API's sendAt and the like): strict RFC 3339, calendar-valid,
 * bounded.
 *
 * @example
 *   import { parseDateTime } from '@herald/core/time';
 *   const at = parseDateTime(body.sendAt, 'sendAt');
 */
export {
  parseDateTime,
  parseOptionalDateTime,
  isLeapYear,
  daysInMonth,
  MIN_DATE_TIME_MS,
  MAX_DATE_TIME_MS,
  MAX_DATE_TIME_CHARS,
} from './date-time';
export { parseSendAt, SEND_AT_SKEW_MS } from './send-time';
export {
  parseDeliverAt,
  checkDeliverAt,
  checkWindowWithinLifetime,
  parseLocalTime,
  formatLocalTime,
  parseWindow,
  parseUserTimeZone,
  zoneOffsetMinutes,
  localInstant,
  zoneRelease,
  MISSED_POLICIES,
  MAX_WINDOW_MS,
  MAX_LOCAL_GROUPS,
  DEFAULT_WINDOW_MS,
} from './local-time';
export type { DeliverAt, DeliverAtRequest, MissedPolicy, ZoneRelease } from './local-time';
export {
  parseQuietHours,
  parseQuietLoginMode,
  checkQuietHours,
  quietHoursEnd,
  quietHoursText,
  isQuietAt,
  QUIET_PUSH_MODES,
  QUIET_LOGIN_MODES,
} from './quiet-hours';
export type { QuietHours, QuietPushMode, QuietLoginMode } from './quiet-hours';
