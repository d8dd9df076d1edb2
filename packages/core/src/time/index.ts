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
