/**
 * The search boxes of the task and campaign lists. The server searches
 * (GET /api/v1/tasks?q=, GET /api/v1/campaigns?q=): text in the title or
 * message (and a campaign's name), ignoring case, and a whole number also
 * finds the task or campaign with that id. This turns what was typed into
 * the `q` to send, or says in words why it cannot be sent.
 */
export const MAX_SEARCH_CHARS = 200;

/** How long typing must pause before the list asks the server again. */
export const SEARCH_DEBOUNCE_MS = 300;

export type SearchTerm = { q: string | undefined } | { error: string };

export function searchTerm(typed: string): SearchTerm {
  const trimmed = typed.trim();
  // "#42" is how ids are written elsewhere on the page: search for 42.
  const text = /^#\d+$/.test(trimmed) ? trimmed.slice(1) : trimmed;
  if (text === '') return { q: undefined };
  if ([...text].length > MAX_SEARCH_CHARS) return { error: `A search is at most ${MAX_SEARCH_CHARS} characters.` };
  return { q: text };
}

/** The list's empty state while searching: what was looked for, and whether older pages are still to look at. */
export function noMatchText(noun: 'task' | 'campaign', q: string, moreToLook: boolean, filtered: boolean): string {
  const scope = filtered ? ' with these filters' : '';
  return moreToLook
    ? `No ${noun} matches “${q}”${scope} among those looked at so far; the next page looks further.`
    : `No ${noun} matches “${q}”${scope}.`;
}
