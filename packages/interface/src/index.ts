/**
 * @module @herald/interface
 *
 * The interface tier: the HTTP API (/api/v1, docs/api.md). It persists a task
 * and then hands it to the scheduler over ZeroMQ. Every route but the public
 * reads needs an API token (`Authorization: Bearer hrd_...`); operators see
 * only their accounts; mutations are audited.
 *
 * @example
 *   const app = createApiServer({ config, store, access, lists, toScheduler, clock, logger, blacklistIds });
 *   await app.listen({ host: config.http.host, port: config.http.port });
 */
export { createApiServer } from './server';
export type { ApiDeps, ChannelControl, ChannelLimitsView, ClusterMembership } from './api-deps';
export type { AudienceSourceDeps, AudienceJob, JobState } from './audience-jobs';
export { toHttpError } from './http-errors';
// Tokens made outside the API (herald token create, the demo): the same text form and hash.
export { hashTokenSecret, newTokenText } from './access/token-crypto';
export type { NewTokenText } from './access/token-crypto';
export type { ErrorBody } from './http-errors';
