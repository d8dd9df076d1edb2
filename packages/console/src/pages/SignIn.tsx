import { useState, type FormEvent } from 'react';
import { ApiError } from '../api/client';
import { useTitle } from '../hooks';

/** The sign-in page: an API token (issued by an admin, see docs/operator-guide.md). */
export function SignIn({
  onSignedIn,
  ended = null,
}: {
  onSignedIn: (token: string, keep: boolean) => Promise<void>;
  ended?: string | null;
}) {
  useTitle('Sign in');
  const [token, setToken] = useState('');
  const [keep, setKeep] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (token.trim() === '') return setError('Paste your API token.');
    setBusy(true);
    setError(undefined);
    try {
      await onSignedIn(token.trim(), keep);
    } catch (e) {
      setError(
        e instanceof ApiError && e.status === 401
          ? 'This token is not valid (unknown, revoked or mistyped).'
          : (e as Error).message,
      );
      setBusy(false);
    }
  };

  return (
    <div className="signin">
      <form onSubmit={submit} className="card">
        <h1>Herald</h1>
        <p className="muted">Operator console</p>
        {ended && (
          <div className="banner info session-ended" role="status">
            {ended}
          </div>
        )}
        <div className={`field stacked ${error ? 'has-error' : ''}`}>
          <label htmlFor="token">API token</label>
          <input
            id="token"
            type="password"
            autoComplete="current-password"
            autoFocus
            value={token}
            onChange={(e) => setToken(e.target.value)}
            placeholder="hrd_…"
          />
          {error && (
            <div className="field-error" role="alert" data-field="token">
              {error}
            </div>
          )}
        </div>
        <label className="check">
          <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.target.checked)} /> Keep me signed in on this
          browser
        </label>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </div>
  );
}
