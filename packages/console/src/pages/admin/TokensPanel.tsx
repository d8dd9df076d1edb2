import { useState, type FormEvent } from 'react';
import { api, query } from '../../api/client';
import type { CreatedToken, TokenPage } from '../../api/admin-types';
import { ErrorBanner, Field } from '../../components/bits';
import { usePoll } from '../../hooks';
import { fmtTime } from '../../lib/format';

/** Account ids as typed: comma or space separated, empty ones dropped. */
function parseAccounts(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((a) => a.trim())
    .filter((a) => a !== '');
}

/**
 * API tokens: create one with a role and its accounts (the secret is shown
 * once, in this panel, and never again: the server keeps only its hash),
 * list them page by page, revoke one. Tokens are never deleted: the audit
 * log names them.
 */
export function TokensPanel() {
  const [cursors, setCursors] = useState<string[]>([]);
  const cursor = cursors[cursors.length - 1];
  const { data, error, reload } = usePoll<TokenPage>(
    (signal) => api('GET', '/api/v1/tokens' + query({ cursor, limit: 50 }), undefined, signal),
    [cursor],
  );
  const [name, setName] = useState('');
  const [role, setRole] = useState<'operator' | 'admin'>('operator');
  const [accounts, setAccounts] = useState('');
  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [actionError, setActionError] = useState<Error | null>(null);
  const [busy, setBusy] = useState(false);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setActionError(null);
    // The last token's secret goes at once: read while the new one is on its way, it would be taken for it.
    setCreated(null);
    setBusy(true);
    try {
      const body = role === 'admin' ? { name, role } : { name, role, accounts: parseAccounts(accounts) };
      setCreated(await api<CreatedToken>('POST', '/api/v1/tokens', body));
      setName('');
      setAccounts('');
      reload();
    } catch (e) {
      setActionError(e as Error);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (id: string, tokenName: string) => {
    if (!window.confirm(`Revoke token "${tokenName}" (${id})? Whoever uses it is signed out at once.`)) return;
    setActionError(null);
    try {
      await api('DELETE', `/api/v1/tokens/${encodeURIComponent(id)}`);
      reload();
    } catch (e) {
      setActionError(e as Error);
    }
  };

  return (
    <section aria-labelledby="tokens-heading">
      <h2 id="tokens-heading">API tokens</h2>
      <form className="admin-form" onSubmit={(e) => void create(e)}>
        <Field label="Name" htmlFor="token-name" hint="1 to 64 characters: who or what uses it">
          <input id="token-name" value={name} maxLength={64} required onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field label="Role" htmlFor="token-role" hint="An admin acts for every account and administers Herald">
          <select id="token-role" value={role} onChange={(e) => setRole(e.target.value as 'operator' | 'admin')}>
            <option value="operator">operator</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        {role === 'operator' && (
          <Field label="Accounts" htmlFor="token-accounts" hint="The accounts it may act for, separated by commas">
            <input id="token-accounts" value={accounts} required onChange={(e) => setAccounts(e.target.value)} />
          </Field>
        )}
        <button className="primary" type="submit" disabled={busy}>
          Create token
        </button>
      </form>
      {created && (
        <div className="banner info secret" role="status">
          <p>
            Token <strong>{created.name}</strong> created. Copy its secret now: it is shown this once and never again.
          </p>
          <code data-secret>{created.token}</code>{' '}
          <button type="button" onClick={() => void navigator.clipboard?.writeText(created.token)}>
            Copy
          </button>{' '}
          <button type="button" className="link" onClick={() => setCreated(null)}>
            Done, hide it
          </button>
        </div>
      )}
      <ErrorBanner error={error ?? actionError} />
      <table className="grid tokens">
        <thead>
          <tr>
            <th>Id</th>
            <th>Name</th>
            <th>Role</th>
            <th>Accounts</th>
            <th>Created</th>
            <th>Revoked</th>
            <th>
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {data?.tokens.map((t) => (
            <tr key={t.id} data-token={t.id}>
              <td>
                <code>{t.id}</code>
              </td>
              <td>{t.name}</td>
              <td>{t.role}</td>
              <td>{t.role === 'admin' ? 'all' : t.accounts.join(', ')}</td>
              <td>{fmtTime(t.createdAt)}</td>
              <td>{t.revokedAt === null ? '' : fmtTime(t.revokedAt)}</td>
              <td>
                {t.revokedAt === null && (
                  <button className="danger-outline" onClick={() => void revoke(t.id, t.name)}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <div className="pager">
        <button disabled={cursors.length === 0} onClick={() => setCursors((c) => c.slice(0, -1))}>
          First page
        </button>
        <button
          disabled={!data?.nextCursor}
          onClick={() => data?.nextCursor && setCursors((c) => [...c, data.nextCursor!])}
        >
          Next page
        </button>
      </div>
    </section>
  );
}
