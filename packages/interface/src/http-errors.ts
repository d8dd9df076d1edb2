import { ErrorCodes, isHeraldError, type ErrorCode } from '@herald/core';

/** The HTTP status of each error code. Anything unlisted is a 500. */
export const STATUS_OF_CODE: Readonly<Partial<Record<ErrorCode, number>>> = {
  [ErrorCodes.VALIDATION_FAILED]: 400,
  [ErrorCodes.MALFORMED_JSON]: 400,
  [ErrorCodes.MALFORMED_REQUEST]: 400,
  [ErrorCodes.REQUEST_TIMEOUT]: 408,
  [ErrorCodes.BODY_TOO_LARGE]: 413,
  [ErrorCodes.UNSUPPORTED_MEDIA_TYPE]: 415,
  [ErrorCodes.HEADERS_TOO_LARGE]: 431,
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
  [ErrorCodes.SESSION_ENDED]: 401,
  [ErrorCodes.CONSOLE_HEADER_REQUIRED]: 403,
  [ErrorCodes.RATE_LIMITED]: 429,
  [ErrorCodes.ILLEGAL_TRANSITION]: 409,
  [ErrorCodes.TASK_NOT_PREPROCESSED]: 409,
  // The task is still running and would write its records again: purge once it is over.
  [ErrorCodes.TASK_NOT_OVER]: 409,
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
  if (error.code === ErrorCodes.UNAUTHENTICATED || error.code === ErrorCodes.SESSION_ENDED)
    return { 'www-authenticate': 'Bearer' };
  if (error.code === ErrorCodes.RATE_LIMITED)
    return { 'retry-after': String(Math.max(1, Math.ceil(Number(error.details.retryAfterMs) / 1000))) };
  return {};
}

/** Fastify's own client errors that have a code of their own; any other is VALIDATION_FAILED with Fastify's status. */
const FASTIFY_CODES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_BODY_TOO_LARGE: {
    code: ErrorCodes.BODY_TOO_LARGE,
    message: 'the request body is larger than this route accepts',
  },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
    message: 'this route does not read a body of this Content-Type',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    code: ErrorCodes.MALFORMED_JSON,
    message: 'the body is not valid JSON (Content-Type: application/json)',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    code: ErrorCodes.MALFORMED_JSON,
    message: 'the body is empty (Content-Type: application/json)',
  },
};

/** Maps anything thrown in a handler to a status and a JSON body with a stable code. */
export function toHttpError(error: unknown): { status: number; body: ErrorBody } {
  if (isHeraldError(error)) {
    const status = STATUS_OF_CODE[error.code];
    // A code with no status here is not the caller's business (STORE_CLOSED at shutdown, a frame the wire refused): INTERNAL, logged by the server.
    return status === undefined ? internalError() : { status, body: { error: error.toJSON() } };
  }
  const fastify = error as {
    statusCode?: number;
    code?: string;
    message?: string;
    validation?: unknown;
    validationContext?: unknown;
  };
  if (fastify.validation !== undefined)
    return {
      status: 400,
      body: { error: schemaViolation(fastify.validation, fastify.validationContext, fastify.message) },
    };
  const known = typeof fastify.code === 'string' ? FASTIFY_CODES[fastify.code] : undefined;
  if (known !== undefined)
    return { status: STATUS_OF_CODE[known.code]!, body: { error: { code: known.code, message: known.message } } };
  if (typeof fastify.statusCode === 'number' && fastify.statusCode >= 400 && fastify.statusCode < 500) {
    // Fastify's other client errors: a malformed URL, a body shorter than its Content-Length.
    return {
      status: fastify.statusCode,
      body: { error: { code: ErrorCodes.VALIDATION_FAILED, message: fastify.message ?? 'bad request' } },
    };
  }
  return internalError();
}

function internalError(): { status: number; body: ErrorBody } {
  return { status: 500, body: { error: { code: ErrorCodes.INTERNAL, message: 'internal error' } } };
}

interface SchemaError {
  instancePath?: unknown;
  message?: unknown;
  params?: { missingProperty?: unknown; additionalProperty?: unknown };
}

/** Where a request part is, as a message says it. */
const PART_NAMES: Record<string, string> = {
  body: 'the body',
  querystring: 'the query string',
  params: 'the path',
  headers: 'the headers',
};

/**
 * A schema violation as an error body: VALIDATION_FAILED, details.field
 * naming the field ('template.listId', 'limit'), and for an unknown field a
 * message that says it is refused, not ignored.
 */
function schemaViolation(validation: unknown, context: unknown, fallback: string | undefined): ErrorBody['error'] {
  const first = (Array.isArray(validation) ? validation[0] : undefined) as SchemaError | undefined;
  const field = schemaField(first);
  const part = PART_NAMES[String(context)] ?? 'the request';
  const unknown = first?.params?.additionalProperty;
  // Fastify's own wording otherwise ('body/speed must be integer'): clients read the field from it when details lack one.
  const message =
    typeof unknown === 'string'
      ? `${part} has an unknown field '${field}': refused, not ignored (a typo? the API reference lists each route's fields)`
      : (fallback ?? 'invalid request');
  return { code: ErrorCodes.VALIDATION_FAILED, message, ...(field === undefined ? {} : { details: { field } }) };
}

/**
 * The field a schema violation is about, in the dotted form the handlers'
 * own errors use ('template.listId', 'cron'): the first violation's path,
 * plus the missing or unknown property. Undefined when the violation is
 * about the whole body or query.
 */
function schemaField(first: SchemaError | undefined): string | undefined {
  if (first === undefined) return undefined;
  const path =
    typeof first.instancePath === 'string'
      ? first.instancePath
          .split('/')
          .filter((part) => part !== '')
          .map(unescapePointer)
      : [];
  if (typeof first.params?.missingProperty === 'string') path.push(first.params.missingProperty);
  if (typeof first.params?.additionalProperty === 'string') path.push(first.params.additionalProperty);
  // 'source.where[0].op', as the handlers' own errors name array items.
  return path.length === 0
    ? undefined
    : path.map((part, i) => (/^[0-9]+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`)).join('');
}

/** A JSON Pointer segment as its property name ('~1' is '/', '~0' is '~'). */
function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
