/*
 * The text search of the task and campaign listings (`q`): a case-insensitive
 * substring of a title, body or name, where a search of digits also matches
 * the id exactly. Pure: every adapter compiles the same term and the
 * embedded ones match with the same function, so both profiles agree on what
 * a search finds.
 */
import { ValidationError } from '../errors';

/** The longest search term, in characters. */
export const MAX_SEARCH_CHARS = 200;

/**
 * How many records an embedded store reads for one page of a search before
 * it stops and answers what it found so far, with a cursor to continue: a
 * search that matches little must not read the whole history in one request.
 */
export const DEFAULT_SEARCH_SCAN_BUDGET = 5_000;

export interface TextSearch {
  /** The term as given, lower-cased: what a title, body or name must contain. */
  needle: string;
  /** The id a search of digits also matches; undefined for any other term. */
  id: number | undefined;
}

/** Checks a search term (1..MAX_SEARCH_CHARS characters) naming `field`; undefined passes through. */
export function compileTextSearch(q: unknown, field = 'q'): TextSearch | undefined {
  if (q === undefined) return undefined;
  if (typeof q !== 'string' || q.length < 1 || [...q].length > MAX_SEARCH_CHARS)
    throw new ValidationError(`${field} must be 1..${MAX_SEARCH_CHARS} characters`, { field });
  const id = /^[0-9]{1,15}$/.test(q) ? Number(q) : undefined;
  return { needle: q.toLowerCase(), id: id !== undefined && id > 0 ? id : undefined };
}

/** Whether any of `texts` contains the search's needle, ignoring case, or `id` is the id it names. */
export function matchesTextSearch(search: TextSearch, id: number, texts: readonly (string | undefined)[]): boolean {
  if (search.id === id) return true;
  return texts.some((text) => text !== undefined && text.toLowerCase().includes(search.needle));
}
