/**
 * The console's session cookie end to end (docs/security.md, "Console
 * sessions"): what POST /api/v1/session sets, that the cookie authenticates
 * like a bearer token and stops with its token's revocation, the CSRF header
 * on changes, and sign-out.
 */
import { ErrorCodes } from '@herald/core';
import type { AuditEntry } from '@herald/core/access';
import { openTestAccess, type TestAccess } from '../access/test-access.test-util';
import { startTestServer, type Answer, type TestServer } from '../access/test-server.test-util';

const HOUR_MS = 3_600_000;

let tokens: TestAccess;
let server: TestServer;

beforeAll(async () => {
  tokens = await openTestAccess();
  server = await startTestServer({
    access: tokens.access,
    config: { auth: { rateLimit: { perSecond: 0 }, sessionMaxAgeMs: 2 * HOUR_MS } },
  });
});

afterAll(async () => {
  await server?.close();
  await tokens?.close();
});

/** Signs in with `token` (no Authorization header: the token is in the body). */
function signIn(token: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  return server.call(undefined, { method: 'POST', path: '/api/v1/session', body: { token, ...extra }, headers });
}

/** The Set-Cookie attributes of an answer, by lowercase name (`herald_session` holds the value). */
function cookieOf(answer: Answer): Map<string, string> {
  const header = answer.headers.get('set-cookie');
  expect(header).not.toBeNull();
  return new Map(
    header!.split(';').map((part) => {
      const [name, ...value] = part.trim().split('=');
      return [name!.toLowerCase(), value.join('=')] as const;
    }),
  );
}

const withCookie = (token: string, headers: Record<string, string> = {}) => ({
  cookie: `other=1; herald_session=${token}`,
  ...headers,
});

describe('POST /api/v1/session', () => {
  it('answers who the token is and sets an HttpOnly, SameSite=Strict cookie on /api that ends with the browser', async () => {
    const ops = await tokens.token('operator', ['acme'], 'acme console');
    const answer = await signIn(ops);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      tokenId: ops.split('_')[1],
      name: 'acme console',
      role: 'operator',
      accounts: ['acme'],
    });
    const cookie = cookieOf(answer);
    expect(cookie.get('herald_session')).toBe(ops);
    expect(cookie.get('path')).toBe('/api');
    expect(cookie.get('samesite')).toBe('Strict');
    expect(cookie.has('httponly')).toBe(true);
    // Plain HTTP here: a Secure cookie would never come back.
    expect(cookie.has('secure')).toBe(false);
    expect(cookie.has('max-age')).toBe(false);
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('keeps the session for auth.sessionMaxAgeMs when asked, and marks it Secure behind TLS', async () => {
    const kept = cookieOf(await signIn(tokens.adminToken, { keep: true }, { 'x-forwarded-proto': 'https' }));
    expect(kept.get('max-age')).toBe(String((2 * HOUR_MS) / 1000));
    expect(kept.has('secure')).toBe(true);
    expect(cookieOf(await signIn(tokens.adminToken, { keep: false })).has('max-age')).toBe(false);
  });

  it('refuses a bad token exactly as a bad bearer token, and sets no cookie', async () => {
    const bad = `hrd_abcd_${'x'.repeat(43)}`;
    const refused = await signIn(bad);
    const bearer = await server.call(bad, { method: 'GET', path: '/api/v1/me' });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual(bearer.body);
    expect(refused.body.error?.code).toBe(ErrorCodes.UNAUTHENTICATED);
    expect(refused.headers.get('set-cookie')).toBeNull();
  });

  it('refuses an unknown field or a missing token, naming the field', async () => {
    const unknown = await signIn(tokens.adminToken, { remember: true });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatchObject({ code: ErrorCodes.VALIDATION_FAILED, details: { field: 'remember' } });
    const missing = await server.call(undefined, { method: 'POST', path: '/api/v1/session', body: { keep: true } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: ErrorCodes.VALIDATION_FAILED, details: { field: 'token' } });
  });

  it("is audited as the token's own request", async () => {
    const ops = await tokens.token('operator', ['acme'], 'audited sign-in');
    expect((await signIn(ops)).status).toBe(200);
    const entries = (
      await server.call(tokens.adminToken, { method: 'GET', path: `/api/v1/audit?tokenId=${ops.split('_')[1]}` })
    ).body.entries as AuditEntry[];
    expect(entries.map((e) => [e.action, e.status, e.tokenName])).toEqual([
      ['POST /api/v1/session', 200, 'audited sign-in'],
    ]);
  });
});

describe('the session cookie', () => {
  it('authenticates a read as the token it holds', async () => {
    const ops = await tokens.token('operator', ['acme'], 'cookie reader');
    const me = await server.call(undefined, { method: 'GET', path: '/api/v1/me', headers: withCookie(ops) });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ name: 'cookie reader', accounts: ['acme'] });
  });

  it("refuses a change without the console's header with 403 CONSOLE_HEADER_REQUIRED, and lets it through with it", async () => {
    const create = {
      method: 'POST',
      path: '/api/v1/tokens',
      body: { name: 'by cookie', role: 'operator', accounts: ['acme'] },
    };
    const refused = await server.call(undefined, { ...create, headers: withCookie(tokens.adminToken) });
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe(ErrorCodes.CONSOLE_HEADER_REQUIRED);
    expect(refused.body.error?.message).toContain('x-herald-console: 1');
    const wrongValue = withCookie(tokens.adminToken, { 'x-herald-console': 'yes' });
    expect((await server.call(undefined, { ...create, headers: wrongValue })).status).toBe(403);
    const allowed = withCookie(tokens.adminToken, { 'x-herald-console': '1' });
    expect((await server.call(undefined, { ...create, headers: allowed })).status).toBe(201);
    // A bearer token needs no such header: no browser adds it unasked.
    expect((await server.call(tokens.adminToken, create)).status).toBe(201);
  });

  it('stops at once when its token is revoked: 401 SESSION_ENDED, and the browser is told to forget the cookie', async () => {
    const ops = await tokens.token('operator', ['acme'], 'soon revoked');
    const read = { method: 'GET', path: '/api/v1/me', headers: withCookie(ops) };
    expect((await server.call(undefined, read)).status).toBe(200);
    const revoke = { method: 'DELETE', path: `/api/v1/tokens/${ops.split('_')[1]}` };
    expect((await server.call(tokens.adminToken, revoke)).status).toBe(200);
    const ended = await server.call(undefined, read);
    expect(ended.status).toBe(401);
    expect(ended.body.error?.code).toBe(ErrorCodes.SESSION_ENDED);
    expect(ended.body.error?.message).not.toContain(ops);
    const cleared = cookieOf(ended);
    expect(cleared.get('herald_session')).toBe('');
    expect(cleared.get('max-age')).toBe('0');
    // And signing in again with it is refused.
    expect((await signIn(ops)).status).toBe(401);
  });

  it('is not consulted when an Authorization header is sent: a malformed one is refused, cookie or not', async () => {
    const answer = await server.call(undefined, {
      method: 'GET',
      path: '/api/v1/me',
      headers: withCookie(tokens.adminToken, { authorization: 'Basic abc' }),
    });
    expect(answer.status).toBe(401);
    expect(answer.body.error?.code).toBe(ErrorCodes.UNAUTHENTICATED);
  });
});

describe('DELETE /api/v1/session', () => {
  it('clears the cookie with the attributes it was set with, without needing a valid token', async () => {
    for (const headers of [withCookie(tokens.adminToken), withCookie(`hrd_gone_${'x'.repeat(43)}`), {}]) {
      const answer = await server.call(undefined, { method: 'DELETE', path: '/api/v1/session', headers });
      expect(answer.status).toBe(204);
      const cookie = cookieOf(answer);
      expect(cookie.get('herald_session')).toBe('');
      expect(cookie.get('max-age')).toBe('0');
      expect(cookie.get('path')).toBe('/api');
      expect(cookie.has('httponly')).toBe(true);
      expect(cookie.get('samesite')).toBe('Strict');
    }
  });
});
