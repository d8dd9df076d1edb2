/**
 * The route table's second half: account limits, audiences, follows, user
 * attributes, the cluster, tokens and the audit log (operations.ts holds the
 * rest and joins both, in this order).
 */
import { integer, object, ref, type JsonSchema } from './schema-builders';

/** A paced channel's limits, as GET /api/v1/channels and its PUT answer them. */
const CHANNEL_LIMITS: JsonSchema = object(
  {
    channel: { type: 'string' },
    minRate: integer('recipients per second the rate never falls below'),
    maxRate: integer("recipients per second the rate never rises above: the channel's limit"),
    rate: { type: 'number', description: "recipients per second this process's share of the channel is paced at now" },
    senders: integer('processes sharing the budget, this one included: each paces to 1/senders of the bounds'),
  },
  ['channel', 'minRate', 'maxRate', 'rate', 'senders'],
);
import { ACCOUNT_404, QUERY_VALID, json, type OperationDoc } from './operation-parts';

/** An account's local-time defaults, as GET and PUT /api/v1/accounts/:accountId/local-time answer them. */
const ACCOUNT_LOCAL_TIME: JsonSchema = object(
  {
    accountId: { type: 'string' },
    defaultTimeZone: {
      type: ['string', 'null'],
      description: 'the zone of recipients without a tz, for tasks whose deliverAt names none; null: UTC',
    },
    quietHours: {
      type: ['string', 'object', 'null'],
      description:
        "quiet hours every task of the account keeps unless it sets its own: 'HH:MM-HH:MM', or { hours: 'HH:MM-HH:MM', during: 'hold' | 'offline' } when during is 'offline'; null: none",
    },
    loginDelivery: {
      type: 'string',
      enum: ['deliver', 'hold'],
      description:
        "a login inside a task's quiet hours: 'deliver' the inbox (the default), or 'hold' the entries of tasks with quiet hours to the next login after them",
    },
  },
  ['accountId', 'defaultTimeZone', 'quietHours', 'loginDelivery'],
);

export const ACCOUNT_OPERATIONS: Record<string, OperationDoc> = {
  'GET /api/v1/accounts/:accountId/limits': {
    tag: 'accounts',
    access: 'token',
    summary: "An account's limits in force and today's usage",
    description:
      'The limits the next broadcast is decided by (defaults, the override, the click-through factor), what is reserved to send today, and when the day resets.',
    responses: { 200: json('the limits', ref('AccountLimits')) },
    errors: { 400: 'VALIDATION_FAILED: a bad account id', 404: ACCOUNT_404 },
  },
  'PUT /api/v1/accounts/:accountId/limits': {
    tag: 'accounts',
    access: 'admin',
    summary: "Set an account's own limits",
    description:
      'Replaces the override: a limit given replaces the default, one left out follows accounts.defaultLimits. Broadcasts already reserved stay.',
    responses: { 200: json('the limits now', ref('AccountLimits')) },
    errors: { 400: 'VALIDATION_FAILED: a bad account id or limit (details.field)' },
  },
  'PUT /api/v1/accounts/:accountId/click-through-rate': {
    tag: 'accounts',
    access: 'admin',
    summary: "Record the click-through rate of an account's last broadcast",
    description:
      'The analytics side feeds it; it scales the limits by clamp(rate / referenceRate, minFactor, maxFactor) from the next broadcast on. null forgets it.',
    responses: { 200: json('the limits now', ref('AccountLimits')) },
    errors: { 400: 'VALIDATION_FAILED: a bad account id, or a rate outside [0, 1] (details.field)' },
  },
  'GET /api/v1/accounts/:accountId/local-time': {
    tag: 'accounts',
    access: 'token',
    summary: "An account's local-time defaults",
    description: 'The default zone and quiet hours its tasks take when they name none (docs/local-time.md).',
    responses: { 200: json('the defaults', ACCOUNT_LOCAL_TIME) },
    errors: { 400: 'VALIDATION_FAILED: a bad account id', 404: ACCOUNT_404 },
  },
  'PUT /api/v1/accounts/:accountId/local-time': {
    tag: 'accounts',
    access: 'admin',
    summary: "Set an account's local-time defaults",
    description:
      "Replaces all three (defaultTimeZone, quietHours: 'HH:MM-HH:MM' or { hours, during: 'hold' | 'offline' }, loginDelivery: 'deliver' | 'hold'): a field left out or null is cleared (loginDelivery back to 'deliver'). Tasks created afterwards take them; tasks already created keep theirs.",
    responses: { 200: json('the defaults now', ACCOUNT_LOCAL_TIME) },
    errors: {
      400: 'VALIDATION_FAILED: a bad account id, a defaultTimeZone that is no IANA zone or +HH:MM, quiet hours that are not HH:MM-HH:MM or cover the whole day, an unknown quietHours field or during, an unknown loginDelivery (details.field: quietHours, quietHours.hours, quietHours.during, quietHours.<name>, loginDelivery)',
    },
  },

  'POST /api/v1/audiences': {
    tag: 'audiences',
    access: 'token',
    summary: 'Build a recipient list from a source',
    description:
      "Starts a job (Location: the job) that writes a list from `{ kind: 'followers' }` (the account's followers), `{ kind: 'targeting', query }` (users whose attributes match) or, admins only, `{ kind: 'table', table, column, where? }`. A malformed query or table description is refused before any job exists.",
    responses: { 202: json('started', ref('AudienceJob')) },
    errors: {
      400: 'VALIDATION_FAILED (a field that does not fit the kind, a source this deployment lacks: details.field); QUERY_INVALID (details.position)',
      403: 'FORBIDDEN: a table source with an operator token',
      404: ACCOUNT_404,
    },
  },
  'GET /api/v1/audiences/check-query': {
    tag: 'audiences',
    access: 'token',
    summary: 'Check a targeting query without running it',
    description: 'Changes nothing and is not audited, so a console may check as the user types.',
    responses: { 200: json('the query parses', QUERY_VALID) },
    errors: { 400: 'QUERY_INVALID: where it fails (details.position)' },
  },
  'POST /api/v1/audiences/check-query': {
    tag: 'audiences',
    access: 'token',
    summary: 'Check a targeting query without running it (the query in a body)',
    responses: { 200: json('the query parses', QUERY_VALID) },
    errors: { 400: 'QUERY_INVALID: where it fails (details.position)' },
  },
  'GET /api/v1/audiences': {
    tag: 'audiences',
    access: 'token',
    summary: 'The audience jobs this process keeps, a page at a time',
    description:
      "Running jobs and those finished within audiences.jobRetentionMs, newest first (one process's jobs: they are not shared), `limit` (default 100, at most 1000) a page; `cursor` is the previous page's `nextCursor`. An operator sees its accounts' only.",
    responses: { 200: json('the jobs', ref('AudienceJobList')) },
    errors: { 400: 'VALIDATION_FAILED' },
  },
  'GET /api/v1/audiences/:id': {
    tag: 'audiences',
    access: 'token',
    summary: 'An audience job: progress, then its list or its error',
    responses: { 200: json('the job', ref('AudienceJob')) },
    errors: {
      400: 'VALIDATION_FAILED',
      404: 'AUDIENCE_JOB_NOT_FOUND: no such job here, or one of an account the token does not name',
    },
  },
  'DELETE /api/v1/audiences/:id': {
    tag: 'audiences',
    access: 'token',
    summary: 'Cancel an audience job',
    description: 'A running job stops and keeps nothing; a finished one is answered as it is.',
    responses: { 200: json('the job as it ended', ref('AudienceJob')) },
    errors: {
      400: 'VALIDATION_FAILED',
      404: 'AUDIENCE_JOB_NOT_FOUND: no such job here, or one of an account the token does not name',
    },
  },
  'POST /api/v1/follows': {
    tag: 'audiences',
    access: 'admin',
    summary: 'Apply follow and unfollow changes',
    description:
      "Applied like the herald.follows topic's events: per (account, user) the latest change wins, so a redelivery changes nothing.",
    responses: {
      200: json('what was written', {
        type: 'object',
        required: ['applied', 'stale'],
        additionalProperties: false,
        properties: {
          applied: { type: 'integer', description: 'changes written' },
          stale: { type: 'integer', description: 'changes outranked by a later one' },
        },
      }),
    },
    errors: { 400: "VALIDATION_FAILED (a bad change; no 'followers' source in this deployment)" },
  },
  'POST /api/v1/user-attributes': {
    tag: 'audiences',
    access: 'admin',
    summary: "Store users' targeting attributes",
    responses: {
      200: json('users stored', {
        type: 'object',
        required: ['stored'],
        additionalProperties: false,
        properties: { stored: { type: 'integer', description: 'distinct users' } },
      }),
    },
    errors: { 400: "VALIDATION_FAILED (a bad user or attribute; no 'targeting' source in this deployment)" },
  },
  'GET /api/v1/user-attributes/:uin': {
    tag: 'audiences',
    access: 'admin',
    summary: "A user's targeting attributes",
    responses: { 200: json('the attributes', ref('UserAttributes')) },
    errors: { 400: 'VALIDATION_FAILED', 404: 'NOT_FOUND: the user has no attributes' },
  },
  'DELETE /api/v1/user-attributes/:uin': {
    tag: 'audiences',
    access: 'admin',
    summary: "Remove a user's targeting attributes",
    responses: { 204: { description: 'removed', schema: null } },
    errors: { 400: 'VALIDATION_FAILED' },
  },

  'GET /api/v1/cluster': {
    tag: 'cluster',
    access: 'admin',
    summary: 'Members, their APTA states, ring shares and live tasks',
    responses: { 200: json('the cluster as this process sees it', ref('Cluster')) },
  },
  'GET /api/v1/channels': {
    tag: 'cluster',
    access: 'admin',
    summary: 'The paced delivery channels of this process, their limits and their rate now',
    description:
      'Only a process whose channels run in it has any (the embedded profile); a production interface lists none: a production executor serves its own on its management endpoint (docs/delivery.md, "Limits at run time").',
    responses: {
      200: json('the channels', object({ channels: { type: 'array', items: CHANNEL_LIMITS } }, ['channels'])),
    },
  },
  'PUT /api/v1/channels/:channel/limits': {
    tag: 'cluster',
    access: 'admin',
    summary: "Change a channel's rate bounds now, without a restart",
    description:
      "maxRate is the channel's limit; the rate moves into the new bounds at once and AIMD goes on between them, for every task sending through the channel. A bound left out keeps its value. Not kept across a restart: the configuration's values come back.",
    responses: { 200: json('the limits now', CHANNEL_LIMITS) },
    errors: {
      400: 'VALIDATION_FAILED: an unknown field, a bound not a positive integer, or minRate above maxRate (details.field)',
      404: 'NOT_FOUND: no paced channel of that name in this process (a production interface has none)',
    },
    params: { channel: { type: 'string', description: 'the channel: webhook' } },
  },

  'GET /api/v1/me': {
    tag: 'access',
    access: 'token',
    summary: 'The calling token',
    responses: { 200: json('who the token is', ref('Me')) },
  },
  'POST /api/v1/session': {
    tag: 'access',
    access: 'public',
    summary: 'Sign the console in: a session cookie for the token in the body',
    description:
      'Checks `token` as a bearer token is checked and answers who it is, like GET /api/v1/me, setting the HttpOnly cookie `herald_session` (SameSite=Strict, Path=/api, Secure over TLS). With `keep: true` the cookie lasts auth.sessionMaxAgeMs, else until the browser closes. Later requests may authenticate with the cookie instead of Authorization; one that changes something (POST, PUT, PATCH, DELETE) must then carry `X-Herald-Console: 1` (docs/security.md, "Console sessions").',
    responses: { 200: json('who the token is; the session cookie is set', ref('Me')) },
    errors: {
      400: 'VALIDATION_FAILED: no token, or an unknown field (details.field)',
      401: 'UNAUTHENTICATED: a malformed, unknown or revoked token (the same answer as a bad bearer token)',
      429: "RATE_LIMITED: over the token's auth.rateLimit (Retry-After in seconds, details.retryAfterMs)",
    },
  },
  'DELETE /api/v1/session': {
    tag: 'access',
    access: 'public',
    summary: 'Sign the console out: clear the session cookie',
    description:
      'Needs no caller, so a browser whose token was revoked can still forget it. The token itself stays valid: revoke it (DELETE /api/v1/tokens/:id) to end every session it signed.',
    responses: { 204: { description: 'the cookie is cleared', schema: null } },
  },
  'POST /api/v1/tokens': {
    tag: 'access',
    access: 'admin',
    summary: 'Make a token',
    description: 'The answer carries the token itself, the only time it is shown: the store keeps its hash.',
    responses: { 201: json('made', ref('NewToken')) },
    errors: { 400: 'VALIDATION_FAILED (details.field)', 409: 'TOKEN_EXISTS' },
  },
  'GET /api/v1/tokens': {
    tag: 'access',
    access: 'admin',
    summary: 'Every token, revoked ones included, a page at a time',
    description:
      "Oldest first, `limit` (default 100, at most 1000) a page; `cursor` is the previous page's `nextCursor`.",
    responses: { 200: json('a page of tokens', ref('TokenList')) },
    errors: { 400: 'VALIDATION_FAILED: a bad cursor or limit' },
  },
  'DELETE /api/v1/tokens/:id': {
    tag: 'access',
    access: 'admin',
    summary: 'Revoke a token',
    description: 'At once on this process, on the others within auth.tokenCacheMs.',
    responses: { 200: json('the token as revoked', ref('Token')) },
    errors: { 400: 'VALIDATION_FAILED', 404: 'TOKEN_NOT_FOUND' },
  },
  'GET /api/v1/audit': {
    tag: 'access',
    access: 'admin',
    summary: 'The audit log, newest first, a page at a time',
    description:
      '`tokenId` and `accountId` filter by who and which account; `from` (inclusive) and `to` (exclusive), RFC 3339 date-times with an offset, by when the request was answered.',
    responses: { 200: json('a page', ref('AuditPage')) },
    errors: {
      400: 'VALIDATION_FAILED: a bad filter, cursor or limit; an impossible date, or `from` after `to` (details.field names it)',
    },
  },
};
