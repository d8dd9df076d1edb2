import { useEffect, useRef, useState } from 'react';
import { SEARCH_DEBOUNCE_MS, searchTerm } from '../lib/task-search';

/**
 * A list's search box: it keeps what is typed and hands the term on once
 * typing pauses (SEARCH_DEBOUNCE_MS), so the server is asked once per
 * pause, not once per key. A term it cannot send is said under the box.
 */
export function SearchBox({
  label,
  placeholder,
  value,
  onSearch,
}: {
  label: string;
  placeholder: string;
  /** The term the list shows now (from the URL or the page's state). */
  value: string;
  onSearch: (q: string) => void;
}) {
  const [typed, setTyped] = useState(value);
  const sent = useRef(value);
  // The latest callback, so a parent's re-render (a poll) does not restart the pause.
  const search = useRef(onSearch);
  search.current = onSearch;
  // A term changed from outside (Back, a link) replaces what the box shows.
  useEffect(() => {
    if (value !== sent.current) {
      sent.current = value;
      setTyped(value);
    }
  }, [value]);
  const term = searchTerm(typed);
  const q = 'q' in term ? (term.q ?? '') : undefined;
  useEffect(() => {
    if (q === undefined || q === sent.current) return;
    const timer = setTimeout(() => {
      sent.current = q;
      search.current(q);
    }, SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [q]);
  const error = 'error' in term ? term.error : undefined;
  return (
    <>
      <input
        type="search"
        aria-label={label}
        placeholder={placeholder}
        value={typed}
        aria-invalid={error !== undefined}
        aria-describedby={error ? 'search-error' : undefined}
        className={error ? 'invalid' : undefined}
        onChange={(e) => setTyped(e.target.value)}
      />
      {error && (
        <span id="search-error" className="field-error" role="alert" data-field="search">
          {error}
        </span>
      )}
    </>
  );
}
