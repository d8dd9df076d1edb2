import { AccessDeniedError, RateLimitedError } from '@herald/core';
import { bearerToken, RateLimiter, type NewAuditEntry, type Principal } from '@herald/core/access';
import { noopMeter, type AccessStore, type Clock, type Logger, type Meter } from '@herald/core/ports';
import type { AuthConfig } from '@herald/core/config';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isPublicRoute, isSessionRoute } from './public-routes';
import { accessOf, setPrincipal } from './request-access';
import { cameOverTls, clearedSessionCookie, CONSOLE_HEADER, sessionCookieOf } from './session-cookie';
import type { TokenVerifier } from './verifier';

export interface GuardDeps {
  access: AccessStore;
  verifier: TokenVerifier;
  auth: AuthConfig;
  clock: Clock;
  logger: Logger;
  meter?: Meter;
}

/** What the guard lends the session routes, which verify a token the guard never saw (it came in a body). */
export interface Admission {
  /** Counts the refusal and answers it exactly as a bad bearer token is answered. */
  invalidToken(): AccessDeniedError;
  /** Takes a request from the token's rate-limit bucket (else RATE_LIMITED) and sets the principal, so the request is audited. */
  admit(request: FastifyRequest, principal: Principal): void;
}

/** Methods that change something: every one of them is audited once its caller is known. */
const MUTATING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Audit fields are bounded (core MAX_AUDIT_FIELD_CHARS); a long path is cut rather than lost. */
function bounded(text: string, max = 255): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * The access guard, installed before any route so it covers them all:
 *
 * onRequest (before the body is read, so a refused upload is never
 * streamed): a public route (public-routes.ts) passes, and so do the session
 * routes, which check the token in their body themselves; any other needs
 * `Authorization: Bearer <token>` naming a valid, unrevoked token (else 401
 * UNAUTHENTICATED), or, without that header, the console's session cookie
 * (session-cookie.ts) naming one (else 401 SESSION_ENDED, and the cookie is
 * cleared); a cookie-authenticated change must also carry the console's
 * header (else 403 CONSOLE_HEADER_REQUIRED). Both are verified alike, store
 * and cache, so a revocation ends a session as it ends a bearer token. Then a
 * request from that token's bucket (else 429 RATE_LIMITED with Retry-After).
 * Only then is the principal set for the route (principalOf,
 * assertCanSeeAccount, visibleAccounts).
 *
 * onSend (after the route answered, before the answer leaves): a mutating
 * request (POST, PUT, PATCH, DELETE) with a verified caller is appended to
 * the audit log with its status, accepted or refused. The append is awaited,
 * so a client that sees an answer can find its entry. If the append fails,
 * the answer still goes out (the action already took effect, and an error
 * would make the client repeat an action that was applied), the whole entry
 * is logged at error level and herald_audit_append_failures_total counts it
 * for alerting: loud, never silent (docs/api.md, "Audit log").
 *
 * Refused before a caller is known (401) or by the rate limit (429), a
 * request is not audited: no handler ran, and writing an entry per refused
 * request would turn a flood into store writes. They are counted instead
 * (herald_api_unauthenticated_total, herald_api_rate_limited_total).
 */
export function installAccessGuard(app: FastifyInstance, deps: GuardDeps): Admission {
  const { verifier, clock, logger } = deps;
  const meter = deps.meter ?? noopMeter;
  const unauthenticated = meter.counter(
    'herald_api_unauthenticated_total',
    'API requests refused for a missing, malformed, unknown or revoked token',
  );
  const rateLimited = meter.counter(
    'herald_api_rate_limited_total',
    'API requests refused by the per-token rate limit (auth.rateLimit)',
  );
  const auditFailures = meter.counter(
    'herald_audit_append_failures_total',
    'Mutating API requests answered whose audit entry could not be written (each is logged at error level)',
  );
  const limiter = new RateLimiter(deps.auth.rateLimit);

  const invalidToken = (): AccessDeniedError => {
    unauthenticated.inc();
    return new AccessDeniedError('UNAUTHENTICATED', 'the token is not valid: malformed, unknown or revoked');
  };
  const admit = (request: FastifyRequest, principal: Principal): void => {
    const take = limiter.take(principal.tokenId, clock.now());
    if (!take.allowed) {
      rateLimited.inc();
      throw new RateLimitedError(take.retryAfterMs);
    }
    setPrincipal(request, principal);
  };

  app.addHook('onRequest', async (request, reply) => {
    const route = request.routeOptions.url;
    // The session routes take their token from the body, or need none (routes/session.ts).
    if (isPublicRoute(request.method, route) || isSessionRoute(request.method, route)) return;
    const credential = credentialOf(request);
    if (credential === undefined) {
      unauthenticated.inc();
      throw new AccessDeniedError('UNAUTHENTICATED', 'this endpoint needs a token: send Authorization: Bearer <token>');
    }
    if (credential.from === 'cookie' && MUTATING.has(request.method) && request.headers[CONSOLE_HEADER] !== '1') {
      throw new AccessDeniedError(
        'CONSOLE_HEADER_REQUIRED',
        `a change made with the console's session cookie must carry the header ${CONSOLE_HEADER}: 1 (the defence against cross-site requests)`,
      );
    }
    const principal = await verifier.verify(credential.token, clock.now());
    if (principal === undefined) {
      if (credential.from === 'bearer') throw invalidToken();
      unauthenticated.inc();
      // The browser forgets the dead session, so the next page is a plain sign-in.
      void reply.header('set-cookie', clearedSessionCookie(cameOverTls(request)));
      throw new AccessDeniedError('SESSION_ENDED', "the session's token is not valid: revoked, unknown or malformed");
    }
    admit(request, principal);
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const access = accessOf(request);
    if (access === undefined || !MUTATING.has(request.method)) return payload;
    const entry: NewAuditEntry = {
      at: clock.now(),
      tokenId: access.principal.tokenId,
      tokenName: access.principal.name,
      action: bounded(`${request.method} ${request.routeOptions.url ?? pathOf(request)}`),
      accountId: access.accountId === undefined ? null : bounded(access.accountId),
      resource: bounded(access.resource ?? pathOf(request)),
      status: reply.statusCode,
    };
    try {
      await deps.access.appendAudit(entry);
    } catch (error) {
      auditFailures.inc();
      logger.error('audit append failed: the request was answered but is not in the audit log', {
        audit: entry,
        error: String(error),
      });
    }
    return payload;
  });
  return { admit, invalidToken };
}

/**
 * What the request authenticates with: the Authorization header when it has
 * one (a malformed one is no credential, whatever cookie comes with it), else
 * the console's session cookie.
 */
function credentialOf(request: FastifyRequest): { from: 'bearer' | 'cookie'; token: string } | undefined {
  if (request.headers.authorization !== undefined) {
    const token = bearerToken(request.headers.authorization);
    return token === undefined ? undefined : { from: 'bearer', token };
  }
  const token = sessionCookieOf(request.headers.cookie);
  return token === undefined ? undefined : { from: 'cookie', token };
}

function pathOf(request: FastifyRequest): string {
  const query = request.url.indexOf('?');
  return query < 0 ? request.url : request.url.slice(0, query);
}
