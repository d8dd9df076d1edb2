import { useState } from 'react';
import { ACCOUNT_ID } from '../lib/broadcast-form';
import { useSession } from '../session';

/**
 * The account the operator acts for: new broadcasts are created under it
 * and the task list starts filtered to it. A token bound to accounts picks
 * among them; an admin (or a server without sign-in) may type any account.
 */
export function AccountPicker() {
  const { me, openServer, account, setAccount } = useSession();
  const free = me.role === 'admin' || openServer;
  const [draft, setDraft] = useState<string | null>(null);

  if (!free) {
    return (
      <label className="account">
        Account
        <select aria-label="Account" value={account} onChange={(e) => setAccount(e.target.value)}>
          {me.accounts.map((a) => (
            <option key={a} value={a}>
              {a}
            </option>
          ))}
        </select>
      </label>
    );
  }
  const value = draft ?? account;
  const valid = ACCOUNT_ID.test(value);
  return (
    <form
      className="account"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) {
          setAccount(value);
          setDraft(null);
        }
      }}
    >
      <label>
        Account
        <input
          aria-label="Account"
          list="herald-accounts"
          value={value}
          placeholder="account id"
          className={valid || value === '' ? undefined : 'invalid'}
          onChange={(e) => setDraft(e.target.value.trim())}
          onBlur={() => valid && value !== account && setAccount(value)}
        />
      </label>
      <datalist id="herald-accounts">
        {me.accounts.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
    </form>
  );
}
