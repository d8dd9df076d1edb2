import type { FastifyRequest } from 'fastify';

/**
 * The console's browser session (docs/security.md, "Console sessions"): the
 * token the operator typed, kept by the browser in an HttpOnly cookie that
 * page scripts cannot read, sent only to /api, never to another site.
 *
 * The cookie holds the token itself, not an id into a session table: every
 * interface process behind a load balancer can check it against the shared
 * token store as it checks a bearer token, and a revoked token stops the
 * session with it. A process-local table would sign the operator out
 * whenever the balancer picked another process.
 */
export const SESSION_COOKIE = 'herald_session';

/**
 * The header the console sends with every request. A cookie-authenticated
 * request that changes something (POST, PUT, PATCH, DELETE) without it is
 * refused: another site can make the browser send the cookie (SameSite
 * aside), but it cannot add a custom header without a CORS preflight this
 * server never grants.
 */
export const CONSOLE_HEADER = 'x-herald-console';

/** Tokens are hrd_<id>_<secret> of [A-Za-z0-9_-]: a cookie value needs no quoting. */
const COOKIE_VALUE = /^[A-Za-z0-9_-]{1,256}$/;

/** The session cookie's value in a Cookie header, or undefined when it names none (or a value no token can be). */
export function sessionCookieOf(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  for (const pair of header.split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim() !== SESSION_COOKIE) continue;
    const value = pair.slice(equals + 1).trim();
    return COOKIE_VALUE.test(value) ? value : undefined;
  }
  return undefined;
}

/**
 * Whether the browser reached us over TLS: this process's own socket, or a
 * TLS-terminating proxy's X-Forwarded-Proto. Trusting the header costs
 * nothing here: a client that lies about it only gets a Secure cookie its
 * plain-HTTP page is then not sent.
 */
export function cameOverTls(request: FastifyRequest): boolean {
  if (request.protocol === 'https') return true;
  const forwarded = request.headers['x-forwarded-proto'];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim().toLowerCase();
  return first === 'https';
}

function attributes(secure: boolean): string {
  return `Path=/api; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

/**
 * The Set-Cookie value that starts a session. `maxAgeMs`: how long it lasts
 * ("keep me signed in"); undefined for a cookie that ends with the browser.
 */
export function sessionCookie(token: string, options: { secure: boolean; maxAgeMs?: number }): string {
  const lifetime = options.maxAgeMs === undefined ? '' : `; Max-Age=${Math.floor(options.maxAgeMs / 1000)}`;
  return `${SESSION_COOKIE}=${token}; ${attributes(options.secure)}${lifetime}`;
}

/** The Set-Cookie value that makes the browser forget the session. */
export function clearedSessionCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; ${attributes(secure)}; Max-Age=0`;
}
