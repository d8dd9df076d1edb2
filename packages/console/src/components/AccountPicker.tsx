import { useState } from 'react';
import { ACCOUNT_ID } from '../lib/broadcast-form';
import { useSession } from '../session';

/**
 * The account the operator acts for, the console's one account selector:
 * new broadcasts are created under it and the task and campaign lists show
 * its own. A token bound to accounts picks among them (or all of them, when it
 * has several); an admin (or a server
 * without sign-in) may type any account, or leave it blank for all accounts.
 * A typed id that is not one is said under it and never used.
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
          {me.accounts.length > 1 && <option value="">all my accounts</option>}
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
  const valid = value === '' || ACCOUNT_ID.test(value);
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
          placeholder="all accounts"
          className={valid ? undefined : 'invalid'}
          aria-invalid={!valid}
          aria-describedby={valid ? undefined : 'account-picker-error'}
          onChange={(e) => setDraft(e.target.value.trim())}
          onBlur={() => valid && value !== account && setAccount(value)}
        />
      </label>
      {!valid && (
        <span id="account-picker-error" className="field-error" role="alert" data-field="account">
          An account id is 1 to 64 lowercase letters, digits or _.
        </span>
      )}
      <datalist id="herald-accounts">
        {me.accounts.map((a) => (
          <option key={a} value={a} />
        ))}
      </datalist>
    </form>
  );
}
