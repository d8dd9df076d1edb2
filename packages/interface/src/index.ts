/**
 * @module @herald/interface
 *
 * The interface tier: the HTTP API (/api/v1, docs/api.md). It persists a task
 * and then hands it to the scheduler over ZeroMQ.
 *
 * @example
 *   const app = createApiServer({ config, store, lists, toScheduler, clock, logger, blacklistIds });
 *   await app.listen({ host: config.http.host, port: config.http.port });
 */
export { createApiServer } from './server';
export type { ApiDeps, ClusterMembership } from './api-deps';
export { toHttpError } from './http-errors';
export type { ErrorBody } from './http-errors';
