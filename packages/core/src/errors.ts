/**
 * One error module for all of Herald. Every error has a stable `code` that
 * callers branch on (never the message, which may change) and a `retriable`
 * flag that the retry helper and the tiers use to decide whether trying the
 * same thing again can succeed.
 */

import { redactSecrets } from './redact';

export const ErrorCodes = {
  CONFIG_INVALID: 'CONFIG_INVALID',
  VALIDATION_FAILED: 'VALIDATION_FAILED',
  /** A request body that is not JSON although its Content-Type says so (or an empty one). */
  MALFORMED_JSON: 'MALFORMED_JSON',
  /** A request body over the route's size limit (HTTP 413). */
  BODY_TOO_LARGE: 'BODY_TOO_LARGE',
  /** A request body of a Content-Type the route does not read (HTTP 415). */
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  /** Request headers over the server's size limit (HTTP 431): answered before any route runs. */
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  /** A request that did not arrive whole within the server's request timeout (HTTP 408). */
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  /** A request the HTTP parser could not read at all (a broken request line or header). */
  MALFORMED_REQUEST: 'MALFORMED_REQUEST',
  NOT_FOUND: 'NOT_FOUND',
  TASK_NOT_FOUND: 'TASK_NOT_FOUND',
  LIST_NOT_FOUND: 'LIST_NOT_FOUND',
  /** An account the caller may not see (or that does not exist: the answer is the same, so an operator learns nothing). */
  ACCOUNT_NOT_FOUND: 'ACCOUNT_NOT_FOUND',
  TOKEN_NOT_FOUND: 'TOKEN_NOT_FOUND',
  /** A token with this id already exists. */
  TOKEN_EXISTS: 'TOKEN_EXISTS',
  /** No token, or one that is malformed, unknown or revoked. */
  UNAUTHENTICATED: 'UNAUTHENTICATED',
  /** A valid token whose role may not use this endpoint (admin endpoints only: account data answers 404). */
  FORBIDDEN: 'FORBIDDEN',
  /** A console session cookie whose token is no longer valid (revoked, unknown, malformed): the cookie is cleared; sign in again. */
  SESSION_ENDED: 'SESSION_ENDED',
  /** A request authenticated by the session cookie, with an unsafe method, but without the console's X-Herald-Console header (the CSRF defence). */
  CONSOLE_HEADER_REQUIRED: 'CONSOLE_HEADER_REQUIRED',
  /** The token's request rate is over `auth.rateLimit`; retriable after `details.retryAfterMs`. */
  RATE_LIMITED: 'RATE_LIMITED',
  LIST_EMPTY: 'LIST_EMPTY',
  LIST_BAD_MAGIC: 'LIST_BAD_MAGIC',
  LIST_UNSUPPORTED_VERSION: 'LIST_UNSUPPORTED_VERSION',
  LIST_BAD_HEADER: 'LIST_BAD_HEADER',
  LIST_TRUNCATED: 'LIST_TRUNCATED',
  LIST_TRAILING_BYTES: 'LIST_TRAILING_BYTES',
  LIST_CHECKSUM_MISMATCH: 'LIST_CHECKSUM_MISMATCH',
  LIST_UIN_OUT_OF_RANGE: 'LIST_UIN_OUT_OF_RANGE',
  /** A text/CSV list upload with more bad lines than its threshold allows, or no valid uin. */
  LIST_TOO_MANY_BAD_LINES: 'LIST_TOO_MANY_BAD_LINES',
  /** No campaign with this id, or one in an account the caller may not see (the same answer). */
  CAMPAIGN_NOT_FOUND: 'CAMPAIGN_NOT_FOUND',
  /** An Idempotency-Key already used for a request with another body. */
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  /** A broadcast over its account's daily quota or frequency (docs/account-quotas.md); details say which limit and when a send time fits. */
  ACCOUNT_QUOTA_EXCEEDED: 'ACCOUNT_QUOTA_EXCEEDED',
  /** A broadcast that reaches many recipients soon, sent without `"confirm": <its recipient count>` (docs/account-quotas.md, "Confirmation"). */
  CONFIRMATION_REQUIRED: 'CONFIRMATION_REQUIRED',
  /** A targeting query that does not parse or names an unknown attribute or value; details say where (docs/audience-sources.md). */
  QUERY_INVALID: 'QUERY_INVALID',
  /** A content template that does not parse or names a variable no user attribute provides; details say where (docs/delivery.md, "Personalised content"). */
  TEMPLATE_INVALID: 'TEMPLATE_INVALID',
  /** An audience source (followers, targeting, a MySQL table) failed while its list was being built; nothing was stored. */
  AUDIENCE_SOURCE_FAILED: 'AUDIENCE_SOURCE_FAILED',
  /** No audience job with this id in this process, or one of an account the caller may not see (the same answer). */
  AUDIENCE_JOB_NOT_FOUND: 'AUDIENCE_JOB_NOT_FOUND',
  /** A recipient's fate asked of a task whose filtered list is not written yet (docs/recipient-truth.md). */
  TASK_NOT_PREPROCESSED: 'TASK_NOT_PREPROCESSED',
  /** A task's delivery records purged while the task is not over (docs/recipient-truth.md, "Purging a task's records"): it would write them again. */
  TASK_NOT_OVER: 'TASK_NOT_OVER',
  ILLEGAL_TRANSITION: 'ILLEGAL_TRANSITION',
  FENCED: 'FENCED',
  VERSION_CONFLICT: 'VERSION_CONFLICT',
  FRAME_MALFORMED: 'FRAME_MALFORMED',
  FRAME_UNKNOWN_KIND: 'FRAME_UNKNOWN_KIND',
  FRAME_UNSUPPORTED_VERSION: 'FRAME_UNSUPPORTED_VERSION',
  STORE_CLOSED: 'STORE_CLOSED',
  /** A schema migration cannot be applied: a statement failed, or an applied migration's file changed. */
  MIGRATION_FAILED: 'MIGRATION_FAILED',
  /** The push channel refused a delivery batch for good (e.g. the webhook answered 4xx): trying the same batch again will not help. */
  DELIVERY_REJECTED: 'DELIVERY_REJECTED',
  /** The push channel asked Herald to slow down (e.g. HTTP 429); `details.retryAfterMs`, when the channel said, is how long to wait. */
  DELIVERY_THROTTLED: 'DELIVERY_THROTTLED',
  /** A canary's sample went over a threshold (docs/rollouts.md): the task paused itself; this is its `error`, with the ratio. */
  CANARY_FAILED: 'CANARY_FAILED',
  UNAVAILABLE: 'UNAVAILABLE',
  INTERNAL: 'INTERNAL',
} as const;

export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

export interface HeraldErrorOptions {
  retriable?: boolean;
  cause?: unknown;
  details?: Record<string, unknown>;
}

export class HeraldError extends Error {
  readonly code: ErrorCode;
  readonly retriable: boolean;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: HeraldErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.retriable = options.retriable ?? false;
    this.details = options.details ?? {};
  }

  toJSON(): { code: ErrorCode; message: string; details?: Record<string, unknown> } {
    return Object.keys(this.details).length === 0
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

/**
 * Bad configuration: names the setting so the operator can fix it in one go.
 * The message is redacted (redact.ts): the value it quotes may be a URL with
 * a password or a token, and the message goes to a terminal and to logs.
 */
export class ConfigError extends HeraldError {
  readonly setting: string;
  constructor(setting: string, message: string) {
    const shown = redactSecrets(setting);
    super(ErrorCodes.CONFIG_INVALID, `config ${shown}: ${redactSecrets(message)}`, { details: { setting: shown } });
    this.setting = shown;
  }
}

/** A request or input value that can never succeed as given. */
export class ValidationError extends HeraldError {
  constructor(message: string, details: Record<string, unknown> = {}) {
    super(ErrorCodes.VALIDATION_FAILED, message, { details });
  }
}

export class NotFoundError extends HeraldError {
  constructor(
    code:
      | 'NOT_FOUND'
      | 'TASK_NOT_FOUND'
      | 'LIST_NOT_FOUND'
      | 'ACCOUNT_NOT_FOUND'
      | 'TOKEN_NOT_FOUND'
      | 'CAMPAIGN_NOT_FOUND'
      | 'AUDIENCE_JOB_NOT_FOUND',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details });
  }
}

/**
 * The API refused the caller: UNAUTHENTICATED (no valid token), FORBIDDEN
 * (a valid token whose role may not use the endpoint), SESSION_ENDED (a
 * console session cookie whose token is no longer valid) or
 * CONSOLE_HEADER_REQUIRED (a cookie-authenticated change without the
 * console's header). Messages never echo the token.
 */
export class AccessDeniedError extends HeraldError {
  constructor(code: 'UNAUTHENTICATED' | 'FORBIDDEN' | 'SESSION_ENDED' | 'CONSOLE_HEADER_REQUIRED', message: string) {
    super(code, message);
  }
}

/** Too many requests for one token; trying again after `retryAfterMs` can succeed. */
export class RateLimitedError extends HeraldError {
  readonly retryAfterMs: number;
  constructor(retryAfterMs: number) {
    super(
      ErrorCodes.RATE_LIMITED,
      `too many requests for this token: try again in ${Math.ceil(retryAfterMs / 1000)} s`,
      {
        retriable: true,
        details: { retryAfterMs },
      },
    );
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A broadcast refused by its account's B-side limits (docs/account-quotas.md):
 * `details.limit` names the limit (dailyBroadcasts, dailyRecipients,
 * minIntervalMs), `details.field` the request field to change, and
 * `details.retryAt` (epoch ms), when a later send time can fit, the earliest
 * one this limit would not refuse. Not retriable: the same request is refused
 * again until the account's usage changes or its send time moves.
 */
export class AccountQuotaError extends HeraldError {
  constructor(accountId: string, message: string, details: Record<string, unknown>) {
    super(ErrorCodes.ACCOUNT_QUOTA_EXCEEDED, `account ${accountId}: ${message}`, {
      details: { accountId, ...details },
    });
  }
}

/** A recipient-list file that cannot be read: wrong magic, truncated, bad checksum, ids out of range. */
export class ListFormatError extends HeraldError {
  constructor(
    code:
      | 'LIST_EMPTY'
      | 'LIST_BAD_MAGIC'
      | 'LIST_UNSUPPORTED_VERSION'
      | 'LIST_BAD_HEADER'
      | 'LIST_TRUNCATED'
      | 'LIST_TRAILING_BYTES'
      | 'LIST_CHECKSUM_MISMATCH'
      | 'LIST_UIN_OUT_OF_RANGE'
      | 'LIST_TOO_MANY_BAD_LINES',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details });
  }
}

/**
 * A malformed targeting query. `position` is the 0-based index in the query
 * text where the problem starts (for an unexpected end, the query's length),
 * so a client can point at it; `found` is the text there, `expected` what
 * would have been accepted.
 */
export class QueryError extends HeraldError {
  readonly position: number;
  constructor(message: string, position: number, details: { found?: string; expected?: readonly string[] } = {}) {
    super(ErrorCodes.QUERY_INVALID, `targeting query, position ${position}: ${message}`, {
      details: { position, ...details },
    });
    this.position = position;
  }
}

/**
 * A malformed content template (docs/delivery.md, "Personalised content").
 * `field` is the content field (`content.body`, `content.title`), `position`
 * the 0-based index in its text where the problem starts (for an unexpected
 * end, the text's length).
 */
export class TemplateError extends HeraldError {
  readonly position: number;
  constructor(
    field: string,
    message: string,
    position: number,
    details: { found?: string; expected?: readonly string[] } = {},
  ) {
    super(ErrorCodes.TEMPLATE_INVALID, `${field} template, position ${position}: ${message}`, {
      details: { field, position, ...details },
    });
    this.position = position;
  }
}

/**
 * An audience source failed after it started streaming (a connection lost, a
 * table dropped, a store closed). The list being built is discarded, never
 * stored. Retriable when its cause was (`details.causeCode` names the cause's
 * code when it had one).
 */
export class AudienceSourceError extends HeraldError {
  constructor(
    source: string,
    message: string,
    options: { cause?: unknown; retriable?: boolean; details?: Record<string, unknown> } = {},
  ) {
    super(ErrorCodes.AUDIENCE_SOURCE_FAILED, `audience source ${source}: ${message}`, {
      retriable: options.retriable ?? false,
      cause: options.cause,
      details: { source, ...options.details },
    });
  }
}

export class IllegalTransitionError extends HeraldError {
  constructor(machine: string, from: string, event: string) {
    super(ErrorCodes.ILLEGAL_TRANSITION, `${machine}: event '${event}' is not allowed in state '${from}'`, {
      details: { machine, from, event },
    });
  }
}

/**
 * A write carried an owner epoch older than the one stored: a newer owner
 * exists, so this writer must stop. Not retriable: retrying with the same
 * epoch can never succeed.
 */
export class FencedError extends HeraldError {
  constructor(taskId: number, heldEpoch: number, storedEpoch: number) {
    super(ErrorCodes.FENCED, `task ${taskId}: owner epoch ${heldEpoch} is stale (store has ${storedEpoch})`, {
      details: { taskId, heldEpoch, storedEpoch },
    });
  }
}

/** A malformed ZeroMQ frame. Counted and dropped by the receiver; never fatal. */
export class FrameError extends HeraldError {
  constructor(
    code: 'FRAME_MALFORMED' | 'FRAME_UNKNOWN_KIND' | 'FRAME_UNSUPPORTED_VERSION',
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { details });
  }
}

export function isHeraldError(error: unknown): error is HeraldError {
  return error instanceof HeraldError;
}
