import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, ApiError, setToken, setUnauthenticatedHandler } from './api/client';
import type { Me } from './api/types';

/**
 * Who is signed in and for which account they act. The token lives in the
 * tab's sessionStorage (or localStorage when "keep me signed in" is ticked)
 * and goes with every request; the chosen account is remembered per browser.
 */
export interface Session {
  me: Me;
  /** True when the server has no sign-in (GET /api/v1/me is not there): any token is accepted. */
  openServer: boolean;
  account: string;
  setAccount: (account: string) => void;
  signOut: () => void;
}

const TOKEN_KEY = 'herald.console.token';
const ACCOUNT_KEY = 'herald.console.account';
const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Asks the server who the token belongs to. A server without GET /api/v1/me runs without sign-in. */
export async function whoAmI(token: string): Promise<{ me: Me; openServer: boolean }> {
  setToken(token);
  try {
    return { me: await api<Me>('GET', '/api/v1/me'), openServer: false };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) {
      return { me: { tokenId: '-', name: 'operator', role: 'admin', accounts: [] }, openServer: true };
    }
    throw error;
  }
}

/** The remembered account if this token may act for it (an admin may act for any), else the token's first. */
function accountFor(me: Me, remembered: string): string {
  if (me.role === 'admin') return remembered || me.accounts[0] || '';
  return me.accounts.includes(remembered) ? remembered : (me.accounts[0] ?? '');
}

function storedToken(): string {
  return sessionStorage.getItem(TOKEN_KEY) ?? localStorage.getItem(TOKEN_KEY) ?? '';
}

export function SessionProvider({
  signIn,
  children,
}: {
  /** `ended`: why the last session ended, when the server ended it (null after a sign-out or on first visit). */
  signIn: (onSignedIn: (token: string, keep: boolean) => Promise<void>, ended: string | null) => ReactNode;
  children: ReactNode;
}) {
  const [state, setState] = useState<{ me: Me; openServer: boolean } | null>(null);
  const [checking, setChecking] = useState(storedToken() !== '');
  const [account, setAccountState] = useState(localStorage.getItem(ACCOUNT_KEY) ?? '');
  const [ended, setEnded] = useState<string | null>(null);

  const signOut = useCallback(() => {
    sessionStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(TOKEN_KEY);
    setToken('');
    setState(null);
  }, []);

  useEffect(() => {
    // The server refused the token (revoked, expired, unknown): the operator is told why, not just signed out.
    setUnauthenticatedHandler((reason) => {
      if (storedToken() === '') return;
      signOut();
      setEnded(`Your session ended: Herald no longer accepts this token (${reason}). Sign in again.`);
    });
    const token = storedToken();
    if (token === '') return;
    whoAmI(token)
      .then(setState, () => signOut())
      .finally(() => setChecking(false));
  }, [signOut]);

  const onSignedIn = useCallback(async (token: string, keep: boolean) => {
    const who = await whoAmI(token);
    (keep ? localStorage : sessionStorage).setItem(TOKEN_KEY, token);
    setEnded(null);
    setState(who);
  }, []);

  const setAccount = useCallback((value: string) => {
    localStorage.setItem(ACCOUNT_KEY, value);
    setAccountState(value);
  }, []);

  const effectiveAccount = state === null ? '' : accountFor(state.me, account);

  const session = useMemo<Session | null>(
    () =>
      state === null
        ? null
        : { me: state.me, openServer: state.openServer, account: effectiveAccount, setAccount, signOut },
    [state, effectiveAccount, setAccount, signOut],
  );
  if (checking) return <div className="splash">Checking your session…</div>;
  if (session === null) return <>{signIn(onSignedIn, ended)}</>;
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
