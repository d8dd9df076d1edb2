import { useState, type FormEvent } from 'react';
import { api, query } from '../../api/client';
import type { AuditPage } from '../../api/admin-types';
import { ErrorBanner, Field } from '../../components/bits';
import { usePoll } from '../../hooks';
import { fmtTime } from '../../lib/format';

/**
 * The audit log, newest first: every request a token made, accepted or
 * refused. Filtered on the server by token and account (applied when the
 * operator presses Filter, not per keystroke), paged by its keyset cursor.
 */
export function AuditPanel() {
  const [tokenDraft, setTokenDraft] = useState('');
  const [accountDraft, setAccountDraft] = useState('');
  const [filter, setFilter] = useState({ tokenId: '', accountId: '' });
  const [cursors, setCursors] = useState<number[]>([]);
  const cursor = cursors[cursors.length - 1];
  const { data, error } = usePoll<AuditPage>(
    (signal) => api('GET', '/api/v1/audit' + query({ ...filter, cursor, limit: 50 }), undefined, signal),
    [filter.tokenId, filter.accountId, cursor],
  );

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setCursors([]);
    setFilter({ tokenId: tokenDraft.trim(), accountId: accountDraft.trim() });
  };

  return (
    <section aria-labelledby="audit-heading">
      <h2 id="audit-heading">Audit log</h2>
      <form className="admin-form inline" onSubmit={apply} role="search" aria-label="Audit filter">
        <Field label="Filter by token id" htmlFor="audit-token">
          <input id="audit-token" value={tokenDraft} onChange={(e) => setTokenDraft(e.target.value)} />
        </Field>
        <Field label="Filter by account" htmlFor="audit-account">
          <input id="audit-account" value={accountDraft} onChange={(e) => setAccountDraft(e.target.value)} />
        </Field>
        <button type="submit">Filter</button>
      </form>
      <ErrorBanner error={error} />
      <table className="grid audit">
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
