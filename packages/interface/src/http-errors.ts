import { ErrorCodes, isHeraldError, type ErrorCode } from '@herald/core';

/** The HTTP status of each error code. Anything unlisted is a 500. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  [ErrorCodes.VALIDATION_FAILED]: 400,
  [ErrorCodes.LIST_BAD_MAGIC]: 400,
  [ErrorCodes.LIST_UNSUPPORTED_VERSION]: 400,
  [ErrorCodes.LIST_BAD_HEADER]: 400,
  [ErrorCodes.LIST_TRUNCATED]: 400,
  [ErrorCodes.LIST_TRAILING_BYTES]: 400,
  [ErrorCodes.LIST_CHECKSUM_MISMATCH]: 400,
  [ErrorCodes.LIST_UIN_OUT_OF_RANGE]: 400,
  [ErrorCodes.LIST_EMPTY]: 422,
  [ErrorCodes.LIST_TOO_MANY_BAD_LINES]: 422,
  [ErrorCodes.QUERY_INVALID]: 400,
  // The request is well formed JSON; its template is not usable content.
  [ErrorCodes.TEMPLATE_INVALID]: 422,
  // The source behind the job failed (a database, a store): the gateway's answer, not the caller's mistake.
  [ErrorCodes.AUDIENCE_SOURCE_FAILED]: 502,
  [ErrorCodes.AUDIENCE_JOB_NOT_FOUND]: 404,
  // Not 429: that is the token's request rate, and clients retry it as is; this request needs a later send time or a new day.
  [ErrorCodes.ACCOUNT_QUOTA_EXCEEDED]: 422,
  [ErrorCodes.NOT_FOUND]: 404,
  [ErrorCodes.TASK_NOT_FOUND]: 404,
  [ErrorCodes.LIST_NOT_FOUND]: 404,
  [ErrorCodes.ACCOUNT_NOT_FOUND]: 404,
  [ErrorCodes.TOKEN_NOT_FOUND]: 404,
  [ErrorCodes.CAMPAIGN_NOT_FOUND]: 404,
  [ErrorCodes.IDEMPOTENCY_KEY_REUSED]: 409,
  // The request is fine; it must be sent again with the recipient count it reaches (docs/account-quotas.md).
  [ErrorCodes.CONFIRMATION_REQUIRED]: 409,
  [ErrorCodes.TOKEN_EXISTS]: 409,
  [ErrorCodes.UNAUTHENTICATED]: 401,
  [ErrorCodes.FORBIDDEN]: 403,
  [ErrorCodes.RATE_LIMITED]: 429,
  [ErrorCodes.ILLEGAL_TRANSITION]: 409,
  [ErrorCodes.FENCED]: 409,
  [ErrorCodes.VERSION_CONFLICT]: 409,
  [ErrorCodes.UNAVAILABLE]: 503,
};

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

/** Headers an error answer carries beside its body: how to authenticate (401), when to try again (429). */
export function errorHeaders(error: unknown): Record<string, string> {
  if (!isHeraldError(error)) return {};
  if (error.code === ErrorCodes.UNAUTHENTICATED) return { 'www-authenticate': 'Bearer' };
  if (error.code === ErrorCodes.RATE_LIMITED) return { 'retry-after': String(Math.max(1, Math.ceil(Number(error.details.retryAfterMs) / 1000))) };
  return {};
}

/** Maps anything thrown in a handler to a status and a JSON body with a stable code. */
export function toHttpError(error: unknown): { status: number; body: ErrorBody } {
  if (isHeraldError(error)) return { status: STATUS[error.code] ?? 500, body: { error: error.toJSON() } };
  const fastify = error as { statusCode?: number; code?: string; message?: string; validation?: unknown };
  if (fastify.validation !== undefined) {
    const field = schemaField(fastify.validation);
    return { status: 400, body: { error: { code: ErrorCodes.VALIDATION_FAILED, message: fastify.message ?? 'invalid request', ...(field === undefined ? {} : { details: { field } }) } } };
  }
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    // Fastify's own client errors: malformed JSON, unsupported media type, body too large.
    return { status: fastify.statusCode, body: { error: { code: ErrorCodes.VALIDATION_FAILED, message: fastify.message ?? 'bad request' } } };
  }
  return { status: 500, body: { error: { code: ErrorCodes.INTERNAL, message: 'internal error' } } };
}

/**
 * The field a schema violation is about, in the dotted form the handlers'
 * own errors use ('template.listId', 'cron'): the first violation's path,
 * plus the missing property for a `required` one. Undefined when the
 * violation is about the whole body or query.
 */
function schemaField(validation: unknown): string | undefined {
  const first = (Array.isArray(validation) ? validation[0] : undefined) as { instancePath?: unknown; params?: { missingProperty?: unknown } } | undefined;
  if (first === undefined) return undefined;
  const path = typeof first.instancePath === 'string' ? first.instancePath.split('/').filter((part) => part !== '') : [];
  if (typeof first.params?.missingProperty === 'string') path.push(first.params.missingProperty);
  return path.length === 0 ? undefined : path.join('.');
}
