import { MAX_SEARCH_CHARS } from '@herald/core/task';

/**
 * The `q` of a listing, as a route's schema declares it; the store judges it
 * again (core text-search), so a caller of the store directly gets the same
 * answer.
 */
export const SEARCH_FIELD = {
  type: 'string',
  minLength: 1,
  maxLength: MAX_SEARCH_CHARS,
  description: `text to find, ignoring case (1..${MAX_SEARCH_CHARS} characters); digits also match the id exactly`,
} as const;
