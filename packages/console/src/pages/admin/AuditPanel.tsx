import { useState, type FormEvent } from 'react';
import { api, query } from '../../api/client';
import type { AuditPage } from '../../api/admin-types';
import { ErrorBanner, Field } from '../../components/bits';
import { usePoll } from '../../hooks';
import { fmtTime } from '../../lib/format';
import { DATE_TIME_PLACEHOLDER, parseDateTime } from '../../lib/datetime-input';

interface AuditFilter {
  tokenId: string;
  accountId: string;
  /** ISO date-times (UTC) for the API, or '' for no bound. */
  from: string;
  to: string;
}

const NO_FILTER: AuditFilter = { tokenId: '', accountId: '', from: '', to: '' };

/** A typed bound as the API's ISO text, '' when blank, or the mistake in the operator's words. */
function boundOf(text: string): { iso: string } | { error: string } {
  if (text.trim() === '') return { iso: '' };
  const parsed = parseDateTime(text);
  return 'error' in parsed ? parsed : { iso: new Date(parsed.at).toISOString() };
}

/**
 * The audit log, newest first: every request a token made, accepted or
 * refused. Filtered on the server by token, account and time (from
 * inclusive, to exclusive, typed 24-hour in the browser's zone; applied when
 * the operator presses Filter, not per keystroke), paged by its keyset
 * cursor.
 */
export function AuditPanel() {
  const [draft, setDraft] = useState<AuditFilter>(NO_FILTER);
  const [errors, setErrors] = useState<{ from?: string; to?: string }>({});
  const [filter, setFilter] = useState<AuditFilter>(NO_FILTER);
  const [cursors, setCursors] = useState<number[]>([]);
  const cursor = cursors[cursors.length - 1];
  const { data, error } = usePoll<AuditPage>(
    (signal) => api('GET', '/api/v1/audit' + query({ ...filter, cursor, limit: 50 }), undefined, signal),
    [filter.tokenId, filter.accountId, filter.from, filter.to, cursor],
  );

  const apply = (event: FormEvent) => {
    event.preventDefault();
    const from = boundOf(draft.from);
    const to = boundOf(draft.to);
    const found: { from?: string; to?: string } = {};
    if ('error' in from) found.from = from.error;
    if ('error' in to) found.to = to.error;
    if ('iso' in from && 'iso' in to && from.iso !== '' && to.iso !== '' && from.iso > to.iso)
      found.to = 'The end is before the start.';
    setErrors(found);
    if (found.from !== undefined || found.to !== undefined || !('iso' in from) || !('iso' in to)) return;
    setCursors([]);
    setFilter({ tokenId: draft.tokenId.trim(), accountId: draft.accountId.trim(), from: from.iso, to: to.iso });
  };
  const edit = (name: keyof AuditFilter) => (e: { target: { value: string } }) =>
    setDraft({ ...draft, [name]: e.target.value });

  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <form className="admin-form inline" onSubmit={apply} role="search" aria-label="Audit filter">
        <Field label="Filter by token id" htmlFor="audit-token">
          <input id="audit-token" value={draft.tokenId} onChange={edit('tokenId')} />
        </Field>
        <Field label="Filter by account" htmlFor="audit-account">
          <input id="audit-account" value={draft.accountId} onChange={edit('accountId')} />
        </Field>
        <Field label="From" htmlFor="audit-from" error={errors.from}>
          <input
            id="audit-from"
            className="date mono"
            placeholder={DATE_TIME_PLACEHOLDER}
            autoComplete="off"
            spellCheck={false}
            value={draft.from}
            aria-invalid={errors.from !== undefined}
            onChange={edit('from')}
          />
        </Field>
        <Field label="To (before)" htmlFor="audit-to" error={errors.to}>
          <input
            id="audit-to"
            className="date mono"
            placeholder={DATE_TIME_PLACEHOLDER}
            autoComplete="off"
            spellCheck={false}
            value={draft.to}
            aria-invalid={errors.to !== undefined}
            onChange={edit('to')}
          />
        </Field>
        <button type="submit">Filter</button>
      </form>
      <ErrorBanner error={error} />
      {/* Focusable: on a phone the table scrolls sideways, and a keyboard must be able to scroll it. */}
      <table className="grid audit" aria-labelledby="audit-heading" tabIndex={0}>
        <thead>
          <tr>
            <th className="num">#</th>
            <th>When</th>
            <th>Token</th>
            <th>Action</th>
            <th>Account</th>
            <th>Resource</th>
            <th className="num">Status</th>
          </tr>
        </thead>
        <tbody>
          {data?.entries.map((e) => (
            <tr key={e.id} data-audit={e.id}>
              <td className="num">{e.id}</td>
              <td>{fmtTime(e.at)}</td>
              <td title={e.tokenId}>{e.tokenName}</td>
              <td>
                <code>{e.action}</code>
              </td>
              <td>{e.accountId ?? ''}</td>
              <td>{e.resource ?? ''}</td>
              <td className="num">{e.status}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {data && data.entries.length === 0 && <p className="muted">No entry matches.</p>}
      <div className="pager">
        <button disabled={cursors.length === 0} onClick={() => setCursors([])}>
          Newest
        </button>
        <button
          disabled={data?.nextCursor == null}
          onClick={() => data?.nextCursor != null && setCursors((c) => [...c, data.nextCursor!])}
        >
          Older
        </button>
      </div>
    </section>
  );
}
