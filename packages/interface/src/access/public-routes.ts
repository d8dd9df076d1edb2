/**
 * The routes anyone may call without a token, by method and route pattern
 * (the pattern Fastify matched, e.g. '/console/*', never the raw URL, so no
 * path trick reaches another route). Only reads: GET and HEAD.
 *
 * - GET /api/v1/health: load balancers and probes.
 * - GET /api/docs and below: the API's own description.
 * - GET / and /console and below: the web console's static files (it signs in
 *   with a token the user types; every call it makes is authenticated).
 * - GET /metrics: Prometheus. It carries no account names or token names
 *   (labels are tiers, processes, channels, events and results), so it leaks
 *   no account's data; a metric that labels by account or token must not be
 *   added, or /metrics must become admin-only (docs/api.md).
 *
 * A request matching no route is answered 404 NOT_FOUND by the not-found
 * handler, token or not: there is nothing behind it to protect, and the
 * management endpoints (/status, /drain, /faults/*) live on their own
 * listener, so they answer 404 here.
 */
const PUBLIC_READS: readonly RegExp[] = [
  /^\/api\/v1\/health$/,
  /^\/api\/docs(\/.*)?$/,
  /^\/$/,
  /^\/console(\/.*)?$/,
  /^\/metrics$/,
];

/** Whether a request to `routeUrl` (Fastify's matched pattern; undefined: no route matched) needs no token. */
export function isPublicRoute(method: string, routeUrl: string | undefined): boolean {
  if (routeUrl === undefined) return true;
  if (method !== 'GET' && method !== 'HEAD') return false;
  return PUBLIC_READS.some((pattern) => pattern.test(routeUrl));
}

/**
 * The console's session routes (routes/session.ts): POST /api/v1/session
 * checks the token its body carries (the guard cannot: it runs before the
 * body is read), and DELETE /api/v1/session only tells the browser to forget
 * its cookie, which anyone may ask, a revoked session included.
 */
export function isSessionRoute(method: string, routeUrl: string | undefined): boolean {
  return routeUrl === '/api/v1/session' && (method === 'POST' || method === 'DELETE');
}
