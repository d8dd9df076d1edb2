import { LATENCY_BUCKETS_SECONDS, noopMeter, type Meter } from '@herald/core/ports';
import type { FastifyInstance } from 'fastify';
import type { ErrorBody } from './http-errors';

/** Counts one error answer by its code and status. */
export type ErrorCounter = (status: number, body: ErrorBody) => void;

/**
 * Error answers by code and status: every error answer goes through it
 * (server.ts: the error handler, the not-found handler, the router's own
 * errors), so a code's count is the number of times clients saw it.
 */
export function apiErrorCounter(meter: Meter = noopMeter): ErrorCounter {
  const errors = meter.counter('herald_api_errors_total', 'API error answers by code and status', ['code', 'status']);
  return (status, body) => errors.inc({ code: body.error.code, status: String(status) });
}

/**
 * Requests answered, by route pattern, method and status class, with their
 * latency. Route patterns, never raw URLs, so the label set stays bounded and
 * names no id or account (/metrics is public: access/public-routes.ts).
 */
export function installRequestMetrics(app: FastifyInstance, meter: Meter = noopMeter): void {
  const requests = meter.histogram(
    'herald_api_request_seconds',
    'API requests answered, by route pattern, method and status class (2xx, 4xx, 5xx)',
    ['route', 'method', 'status'],
    LATENCY_BUCKETS_SECONDS,
  );
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.observe(reply.elapsedTime / 1000, {
      route,
      method: request.method,
      status: `${Math.floor(reply.statusCode / 100)}xx`,
    });
  });
}
