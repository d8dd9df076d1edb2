import Fastify, { type FastifyInstance } from 'fastify';
import type { ApiDeps } from './api-deps';
import { consoleRoutes } from './console';
import { toHttpError } from './http-errors';
import { clusterRoutes } from './routes/cluster';
import { listRoutes } from './routes/lists';
import { taskRoutes } from './routes/tasks';

/**
 * The interface tier's HTTP API, versioned under /api/v1 (docs/api.md).
 * Every error answers JSON `{ error: { code, message } }` with a stable code.
 */
export function createApiServer(deps: ApiDeps): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: 1 << 20 });
  // Recipient lists stream straight to disk: the handler gets the raw request stream.
  app.addContentTypeParser('application/octet-stream', { bodyLimit: deps.config.http.uploadLimitBytes }, (_request, payload, done) => done(null, payload));
  app.setErrorHandler((error, request, reply) => {
    const { status, body } = toHttpError(error);
    if (status >= 500) deps.logger.error('request failed', { method: request.method, url: request.url, error: String(error) });
    void reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url}` } });
  });
  app.get('/api/v1/health', async () => ({ status: 'ok' }));
  if (deps.metrics) {
    const metrics = deps.metrics;
    app.get('/metrics', async (_request, reply) => {
      const { contentType, body } = await metrics();
      return reply.type(contentType).send(body);
    });
  }
  listRoutes(app, deps);
  taskRoutes(app, deps);
  clusterRoutes(app, deps);
  consoleRoutes(app);
  return app;
}
