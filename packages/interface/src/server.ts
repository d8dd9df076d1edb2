import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { MAX_DEVICE_TOKEN_LENGTH } from '@herald/core/ports';
import { answerClientError } from './client-errors';
import type { ApiDeps } from './api-deps';
import { apiErrorCounter, installRequestMetrics } from './api-metrics';
import { ensureBootstrapAdmin } from './access/bootstrap';
import { installAccessGuard } from './access/guard';
import { recordRoutes } from './access/route-table';
import { TokenVerifier } from './access/verifier';
import { installConnectionPolicy, rawBodyParser } from './connections';
import { consoleRoutes } from './console';
import { errorHeaders, toHttpError } from './http-errors';
import { OPERATIONS, operationKey } from './openapi/operations';
import { registerOpenApi } from './openapi/register';
import { accessRoutes } from './routes/access';
import { audienceRoutes } from './routes/audiences';
import { accountRoutes } from './routes/accounts';
import { accountLocalTimeRoutes } from './routes/account-local-time';
import { campaignRoutes } from './routes/campaigns';
import { clusterRoutes } from './routes/cluster';
import { channelRoutes } from './routes/channels';
import { blacklistRoutes } from './routes/blacklists';
import { deviceRoutes } from './routes/devices';
import { listRoutes } from './routes/lists';
import { recipientRoutes } from './routes/recipients';
import { sessionRoutes } from './routes/session';
import { taskReportRoutes } from './routes/task-report';
import { taskFunnelRoutes } from './routes/task-funnel';
import { taskPromoteRoutes } from './routes/task-promote';
import { taskRecordRoutes } from './routes/task-records';
import { taskEngagementRoutes } from './routes/task-engagement';
import { taskRoutes } from './routes/tasks';
import { templateRoutes } from './routes/templates';
import { installStrictInput, parseJsonBody } from './validation';

/**
 * The interface tier's HTTP API, versioned under /api/v1 (docs/api.md).
 * Every error answers JSON `{ error: { code, message } }` with a stable code.
 * Every route but the public reads needs a token (access/guard.ts); a
 * configured bootstrap admin token is stored when the server gets ready.
 */
export function createApiServer(deps: ApiDeps): FastifyInstance {
  const countError = apiErrorCounter(deps.meter);
  const app = Fastify({
    logger: false,
    bodyLimit: 1 << 20,
    // Requests that come while the server closes answer 503 in the API's error shape (connections.ts), not Fastify's.
    return503OnClosing: false,
    // A device token is a path parameter (PUT /api/v1/devices/:token) and an FCM token runs to ~160 characters: up to 512 are let through.
    routerOptions: { maxParamLength: MAX_DEVICE_TOKEN_LENGTH },
    // Errors the router raises before any route (a malformed URL, a path parameter over maxParamLength characters) answer like every other error.
    frameworkErrors: (error, _request, reply) => {
      const { status, body } = toHttpError(error);
      countError(status, body);
      void (reply as unknown as FastifyReply).code(status).send(body);
    },
    // What Node's HTTP parser refuses before Fastify sees a request (headers over the limit: 431) answers in the same shape.
    clientErrorHandler: (error, socket) => answerClientError(error, socket, countError),
  });
  // Unknown fields refused, no type coercion, every route (validation.ts).
  installStrictInput(app, (method, url) => OPERATIONS[operationKey(method, url)]?.rawBody !== undefined);
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  recordRoutes(app);
  installRequestMetrics(app, deps.meter);
  installConnectionPolicy(app, { shutdownGraceMs: deps.config.http.shutdownGraceMs, logger: deps.logger });
  // Recipient lists stream straight to disk: the handler gets the raw request stream.
  app.addContentTypeParser(
    'application/octet-stream',
    { bodyLimit: deps.config.http.uploadLimitBytes },
    rawBodyParser(deps.config.http.uploadLimitBytes),
  );
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toHttpError(error);
    countError(status, body);
    if (status >= 500)
      deps.logger.error('request failed', { method: request.method, url: request.url, error: String(error) });
    void reply.code(status).headers(errorHeaders(error)).send(body);
  });
  // Before any route, so the guard covers every one of them.
  const verifier = new TokenVerifier(deps.access, deps.config.auth.tokenCacheMs);
  const admission = installAccessGuard(app, {
    access: deps.access,
    verifier,
    auth: deps.config.auth,
    clock: deps.clock,
    logger: deps.logger,
    ...(deps.meter ? { meter: deps.meter } : {}),
  });
  const bootstrapToken = deps.config.auth.bootstrapAdminToken;
  if (bootstrapToken !== null)
    app.addHook('onReady', () => ensureBootstrapAdmin(deps.access, bootstrapToken, deps.clock.now(), deps.logger));
  app.setNotFoundHandler((request, reply) => {
    const body = { error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url}` } };
    countError(404, body);
    void reply.code(404).send(body);
  });
  if (deps.metrics) {
    const metrics = deps.metrics;
    app.get('/metrics', async (_request, reply) => {
      const { contentType, body } = await metrics();
      return reply.type(contentType).send(body);
    });
  }
  consoleRoutes(app);
  // The OpenAPI document (GET /api/docs/json) learns each route as it is registered: it goes first, and the API's routes in a plugin after it.
  registerOpenApi(app);
  void app.register(async (api) => {
    api.get('/api/v1/health', async () => ({ status: 'ok' }));
    listRoutes(api, deps);
    blacklistRoutes(api, deps);
    taskRoutes(api, deps);
    recipientRoutes(api, deps);
    taskReportRoutes(api, deps);
    taskFunnelRoutes(api, deps);
    taskRecordRoutes(api, deps);
    taskPromoteRoutes(api, deps);
    taskEngagementRoutes(api, deps);
    templateRoutes(api, deps);
    if (deps.campaigns !== undefined) campaignRoutes(api, { ...deps, campaigns: deps.campaigns });
    clusterRoutes(api, deps);
    channelRoutes(api, deps);
    if (deps.devices !== undefined) deviceRoutes(api, { ...deps, devices: deps.devices });
    if (deps.audiences !== undefined) audienceRoutes(api, { ...deps, audiences: deps.audiences });
    if (deps.accounts !== undefined) {
      accountRoutes(api, { ...deps, accounts: deps.accounts });
      accountLocalTimeRoutes(api, { ...deps, accounts: deps.accounts });
    }
    accessRoutes(api, deps, verifier);
    sessionRoutes(api, { auth: deps.config.auth, clock: deps.clock, verifier, admission });
  });
  return app;
}
