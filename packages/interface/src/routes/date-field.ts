import { MAX_DATE_TIME_CHARS } from '@herald/core/time';

/**
 * A date a request sends, as a route's schema declares it. `format` is for
 * the OpenAPI document's readers and client generators (and the strict-input
 * property test, which finds date fields by it); the validator does not
 * check formats: core's parseDateTime judges the text in the handler, with
 * the calendar and the range.
 */
export const DATE_TIME_FIELD = {
  type: 'string',
  format: 'date-time',
  minLength: 1,
  maxLength: MAX_DATE_TIME_CHARS,
  description: 'an RFC 3339 date-time with an offset, e.g. 2027-06-01T12:00:00Z (docs/api.md, "Dates")',
} as const;
