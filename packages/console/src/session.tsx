import { createContext, useCallback, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { api, ApiError, setUnauthenticatedHandler } from './api/client';
import type { Me } from './api/types';

/**
 * Who is signed in and for which account they act. Signing in hands the
 * token to the server once (POST /api/v1/session), which keeps it in an
 * HttpOnly cookie for the whole browser: every tab shares the session, and
 * no page script (this one included) can read the token back. The console
 * keeps no token anywhere; the chosen account is remembered per browser.
 * docs/security.md, "Console sessions".
 */
export interface Session {
  me: Me;
  /** True when the server has no sign-in (GET /api/v1/me is not there): any token is accepted. */
  openServer: boolean;
  account: string;
  setAccount: (account: string) => void;
  signOut: () => void;
}

interface SignedIn {
  me: Me;
  openServer: boolean;
}

const ACCOUNT_KEY = 'herald.console.account';
const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error('useSession outside a signed-in page');
  return session;
}

/** A server without the session routes (and GET /api/v1/me) runs without sign-in. */
const OPEN_SERVER: SignedIn = {
  me: { tokenId: '-', name: 'operator', role: 'admin', accounts: [] },
  openServer: true,
};

/** `call`'s answer as who is signed in; a 404 (no such route) means a server without sign-in. */
async function signedInBy(call: Promise<Me>): Promise<SignedIn> {
  try {
    return { me: await call, openServer: false };
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return OPEN_SERVER;
    throw error;
  }
}

/** Why the server ended a session this tab had, in the operator's words. */
function whySessionEnded(error: ApiError): string {
  return error.code === 'SESSION_ENDED'
    ? `Your session ended: Herald no longer accepts this token (${error.message}). Sign in again.`
    : 'Your session ended: this browser signed out (in another tab, or the session expired). Sign in again.';
}

/**
 * The remembered account if this token may act for it (an admin may act for
 * any), else the token's first. Blank is "all accounts" for an admin and
 * "all my accounts" for an operator of several, once chosen (null: never chosen).
 */
function accountFor(me: Me, remembered: string | null): string {
  if (me.role === 'admin') return remembered || me.accounts[0] || '';
  if (remembered === '' && me.accounts.length > 1) return '';
  return remembered !== null && me.accounts.includes(remembered) ? remembered : (me.accounts[0] ?? '');
}

export function SessionProvider({
  signIn,
  children,
}: {
  /** `ended`: why the last session ended, when the server ended it (null after a sign-out or on first visit). */
  signIn: (onSignedIn: (token: string, keep: boolean) => Promise<void>, ended: string | null) => ReactNode;
  children: ReactNode;
}) {
  const [state, setState] = useState<SignedIn | null>(null);
  const [checking, setChecking] = useState(true);
  const [account, setAccountState] = useState<string | null>(localStorage.getItem(ACCOUNT_KEY));
  const [ended, setEnded] = useState<string | null>(null);
  // Read by the 401 handler, which outlives renders: a 401 ends a session only when this tab has one.
  const signedIn = useRef(false);

  const enter = useCallback((who: SignedIn) => {
    signedIn.current = true;
    setEnded(null);
    setState(who);
  }, []);

  const leave = useCallback((why: string | null) => {
    signedIn.current = false;
    setEnded(why);
    setState(null);
  }, []);

  // A sign-in waits for the sign-out before it, so a late DELETE cannot clear the new cookie.
  const signingOut = useRef<Promise<unknown>>(Promise.resolve());

  const signOut = useCallback(() => {
    // The cookie is the whole session: clearing it signs out every tab of this browser at its next request.
    signingOut.current = api('DELETE', '/api/v1/session').catch(() => undefined);
    leave(null);
  }, [leave]);

  useEffect(() => {
    // The server refused the session (token revoked, cookie gone): the operator is told why, not just signed out.
    setUnauthenticatedHandler((error) => {
      if (signedIn.current) leave(whySessionEnded(error));
    });
    // Does this browser already have a session (another tab, or "keep me signed in")?
    signedInBy(api<Me>('GET', '/api/v1/me'))
      .then(enter, (error: unknown) => {
        if (error instanceof ApiError && error.code === 'SESSION_ENDED') leave(whySessionEnded(error));
      })
      .finally(() => setChecking(false));
  }, [enter, leave]);

  const onSignedIn = useCallback(
    async (token: string, keep: boolean) => {
      await signingOut.current;
      enter(await signedInBy(api<Me>('POST', '/api/v1/session', { token, keep })));
    },
    [enter],
  );

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
