/*
 * What the OpenAPI document says about each route, keyed by method and route
 * pattern ('GET /api/v1/tasks/:id'). The routes keep their own validation
 * schemas (params, querystring, body); this table adds what only a reader
 * needs: summary, tag, who may call it, the answers by status and the bodies
 * that are not JSON (uploads). openapi.test.ts fails for a registered
 * /api/v1 route without an entry here, and for an entry without a route.
 */
import { ref, type JsonSchema } from './components';

export const TAGS = [
  {
    name: 'lists',
    description:
      'Recipient lists and blacklists: binary files or text/CSV, validated while they stream to disk (docs/recipient-list-format.md).',
  },
  { name: 'tasks', description: 'Broadcast tasks: create, read, list, cancel, pause, resume.' },
  { name: 'campaigns', description: 'Cron campaigns: a task created at every fire time (docs/campaigns.md).' },
  {
    name: 'accounts',
    description:
      "B-side controls: an account's daily quotas and frequency, scaled by its last click-through rate (docs/account-quotas.md).",
  },
  {
    name: 'audiences',
    description:
      'Lists built from a source instead of an upload (followers, a targeting query, a table), as jobs with progress; and the admin feeds of followers and user attributes (docs/audience-sources.md).',
  },
  { name: 'cluster', description: "The cluster's members as this interface process sees them." },
  { name: 'access', description: 'API tokens, the caller, the audit log (docs/api.md, "Authentication").' },
  { name: 'health', description: 'Liveness for probes and load balancers.' },
] as const;

export type Tag = (typeof TAGS)[number]['name'];

/** Who may call a route: anyone, any valid token (operators on their accounts only), or admin tokens. */
export type Access = 'public' | 'token' | 'admin';

export interface OperationDoc {
  tag: Tag;
  summary: string;
  description?: string;
  access: Access;
  /** Success answers by status: a JSON Schema, or null for an empty body. */
  responses: Record<number, { description: string; schema: JsonSchema | null }>;
  /** Error answers this route gives besides the ones every route may (401, 429, 500, 503), by status: which codes and when. */
  errors?: Record<number, string>;
  /** Path parameters, for a route that checks them in its handler instead of a schema. */
  params?: Record<string, JsonSchema>;
  /** Request headers the route reads. */
  headers?: Record<string, JsonSchema>;
  /** A request body that is not JSON, by content type. */
  rawBody?: { description: string; contentTypes: string[] };
}

const TASK_ID = { type: 'string', pattern: '^[1-9][0-9]{0,15}$', description: 'task id' };
const LIST_BODY = {
  description: 'a binary recipient list (docs/recipient-list-format.md), streamed to disk',
  contentTypes: ['application/octet-stream'],
};
const ACCOUNT_404 =
  'ACCOUNT_NOT_FOUND: an account the token does not name (the same for every such account, existing or not)';
const LIST_ERRORS = {
  400: 'VALIDATION_FAILED (no body, over http.uploadLimitBytes), LIST_BAD_MAGIC, LIST_UNSUPPORTED_VERSION, LIST_BAD_HEADER, LIST_TRUNCATED, LIST_TRAILING_BYTES, LIST_CHECKSUM_MISMATCH, LIST_UIN_OUT_OF_RANGE',
  422: 'LIST_EMPTY; LIST_TOO_MANY_BAD_LINES (text/CSV)',
};
const campaign404 = 'CAMPAIGN_NOT_FOUND: no such campaign, or one of an account the token does not name';
const task404 = 'TASK_NOT_FOUND: no such task, or one of an account the token does not name';

const json = (description: string, schema: JsonSchema) => ({ description, schema });
const QUERY_VALID: JsonSchema = {
  type: 'object',
  required: ['valid'],
  additionalProperties: false,
  properties: { valid: { type: 'boolean', enum: [true] } },
};

export const OPERATIONS: Record<string, OperationDoc> = {
  'GET /api/v1/health': {
    tag: 'health',
    access: 'public',
    summary: 'Liveness',
    responses: { 200: json('the process answers', ref('Health')) },
  },

  'POST /api/v1/lists': {
    tag: 'lists',
    access: 'token',
    summary: 'Upload a recipient list',
    description:
      'The body streams to disk and is checked on the way; nothing is kept unless the whole list is valid. A binary list goes as application/octet-stream; text/plain (one uin a line) and text/csv are converted as they stream in, bad lines counted by reason (`column`, `header`, `delimiter`, `maxBadRatio` apply to them only).',
    responses: { 201: json('stored; send tasks to `id`', ref('UploadedList')) },
    errors: { ...LIST_ERRORS, 404: ACCOUNT_404 },
    rawBody: {
      description: 'the list: binary, or text with one uin a line, or CSV',
      contentTypes: ['application/octet-stream', 'text/plain', 'text/csv'],
    },
  },
  'GET /api/v1/lists/:id': {
    tag: 'lists',
    access: 'token',
    summary: "A list's metadata",
    responses: { 200: json('the list', ref('List')) },
    errors: { 404: 'LIST_NOT_FOUND: no such list, or one of an account the token does not name' },
  },
  'PUT /api/v1/blacklists/global': {
    tag: 'lists',
    access: 'admin',
    summary: 'Replace the global blacklist',
    description:
      'Applies to every account: the dispatcher removes these uins from every task it pre-processes from now on (reason `blacklisted`).',
    responses: { 200: json('stored', ref('List')) },
    errors: LIST_ERRORS,
    rawBody: LIST_BODY,
  },
  'PUT /api/v1/accounts/:accountId/blacklist': {
    tag: 'lists',
    access: 'token',
    summary: "Replace an account's blacklist",
    responses: { 200: json('stored', ref('List')) },
    errors: { ...LIST_ERRORS, 404: ACCOUNT_404 },
    rawBody: LIST_BODY,
  },

  'POST /api/v1/tasks': {
    tag: 'tasks',
    access: 'token',
    summary: 'Create a broadcast task',
    description:
      'Persists the task (CREATED), then hands it to the scheduler. With an Idempotency-Key, a retry answers the task its first try created (200). A task without sendAt starts after tasks.undoGraceMs (the undo window: cancel it meanwhile and nothing is sent). A broadcast over its account\'s confirmAbove recipients that starts within confirmWithinMs needs "confirm": <list.count> (docs/account-quotas.md, "Confirmation"). With ?dryRun=true it is validated as a create (quotas checked, not held) and answered with what would happen (TaskDryRun, 200): nothing is created, held or sent.',
    responses: {
      201: json('created', ref('Task')),
      200: json('a retry: the task created with this Idempotency-Key; with ?dryRun=true, what the create would do', {
        oneOf: [ref('Task'), ref('TaskDryRun')],
      }),
    },
    errors: {
      400: 'VALIDATION_FAILED: a schema violation (a speed that is not an integer in [1, 10^8] among them), content over tasks.maxContentChars, a sendAt or displayAt that is not an RFC 3339 date-time with an offset or not on the calendar, a sendAt in the past (omit it to send now) or beyond tasks.maxScheduleAheadMs, ttlSeconds over the maximum, a bad Idempotency-Key (details.field names the input); QUERY_INVALID: a targeting query that does not parse (details.field targeting, position, found, expected); nothing was created',
      404: 'LIST_NOT_FOUND: no such list for the account, or an account the token does not name',
      409: "IDEMPOTENCY_KEY_REUSED: the key was used before for another request; CONFIRMATION_REQUIRED: the broadcast reaches more than the account's confirmAbove recipients and starts within confirmWithinMs, and confirm is missing or not its recipient count (details: field confirm, recipients, threshold); nothing was created or held",
      422: "ACCOUNT_QUOTA_EXCEEDED: over the account's daily broadcasts or recipients, too close to another of its broadcasts, or a speed over the account's maxSpeed (limit maxSpeed, field speed; maxSpeed 0: the account may not set a speed); nothing was created (details: limit, field, max, used, requested, retryAt). TEMPLATE_INVALID: a template that does not parse or names an unknown variable (details: field, position, found, expected); nothing was created",
    },
    headers: {
      'idempotency-key': {
        type: 'string',
        minLength: 1,
        maxLength: 128,
        description: '1..128 printable ASCII characters; scoped by account',
      },
    },
  },
  'GET /api/v1/tasks': {
    tag: 'tasks',
    access: 'token',
    summary: 'List tasks, a page at a time',
    description:
      'Oldest first. An operator sees its accounts only; filtering by another account answers an empty page.',
    responses: { 200: json('a page', ref('TaskPage')) },
    errors: {
      400: 'VALIDATION_FAILED: a bad filter, or a createdFrom or createdBefore that is not an RFC 3339 date-time with an offset (details.field)',
    },
  },
  'GET /api/v1/templates/preview': {
    tag: 'tasks',
    access: 'token',
    summary: 'A content template rendered for one sample recipient',
    description:
      "Parses `body` (and `title`) as a template task's content (docs/delivery.md, \"Personalised content\") and renders it for `uin`. An admin's preview reads the user's attributes (`attributes`: `store`, or `none` when the store has no such user); an operator's uses the defaults (`defaults`), so it reveals no user's attributes.",
    responses: { 200: json('the rendered content', ref('TemplatePreview')) },
    errors: {
      400: 'VALIDATION_FAILED: a missing body or uin',
      422: 'TEMPLATE_INVALID: where the template fails (details: field, position, found, expected)',
    },
  },
  'GET /api/v1/tasks/:id': {
    tag: 'tasks',
    access: 'token',
    summary: 'A task, with its report',
    responses: { 200: json('the task', ref('Task')) },
    errors: { 400: 'VALIDATION_FAILED: the id is not a positive integer', 404: task404 },
    params: { id: TASK_ID },
  },
  ...Object.fromEntries(
    (['cancel', 'pause', 'resume'] as const).map((command) => [
      `POST /api/v1/tasks/:id/${command}`,
      {
        tag: 'tasks',
        access: 'token',
        summary: `${command[0]!.toUpperCase()}${command.slice(1)} a task`,
        description: 'Checked against the task state machine, then sent to the scheduler, which applies it.',
        responses: { 202: json('accepted', ref('TaskCommandAccepted')) },
        errors: {
          400: 'VALIDATION_FAILED: the id is not a positive integer',
          404: task404,
          409: `ILLEGAL_TRANSITION: the task's state does not allow ${command}`,
        },
        params: { id: TASK_ID },
      } satisfies OperationDoc,
    ]),
  ),

  'GET /api/v1/campaigns/preview': {
    tag: 'campaigns',
    access: 'token',
    summary: 'The next fire times of a cron expression',
    responses: { 200: json('the next five fire times', ref('CronPreview')) },
    errors: { 400: 'VALIDATION_FAILED: a bad cron expression, time zone or `after` (details.field)' },
  },
  'POST /api/v1/campaigns': {
    tag: 'campaigns',
    access: 'token',
    summary: 'Create a campaign',
    description:
      'A cron that fires closer together than campaigns.minPeriodMs anywhere in its next 1000 firings is refused (400 naming cron; details.smallestGapMs, minPeriodMs). The answer carries projectedDailyReach.',
    responses: { 201: json('created', ref('Campaign')) },
    errors: {
      400: 'VALIDATION_FAILED (details.field; a cron under campaigns.minPeriodMs: field cron, smallestGapMs, minPeriodMs)',
      404: 'LIST_NOT_FOUND: no such list for the account, or an account the token does not name',
    },
  },
  'GET /api/v1/campaigns': {
    tag: 'campaigns',
    access: 'token',
    summary: 'List campaigns, a page at a time',
    responses: { 200: json('a page', ref('CampaignPage')) },
    errors: { 400: 'VALIDATION_FAILED' },
  },
  'GET /api/v1/campaigns/:id': {
    tag: 'campaigns',
    access: 'token',
    summary: 'A campaign',
    responses: { 200: json('the campaign', ref('Campaign')) },
    errors: { 400: 'VALIDATION_FAILED', 404: campaign404 },
  },
  'PATCH /api/v1/campaigns/:id': {
    tag: 'campaigns',
    access: 'token',
    summary: 'Change a campaign',
    description:
      'A new cron, time zone or enabling restarts the schedule from now. A new cron or time zone is held to campaigns.minPeriodMs as at creation.',
    responses: { 200: json('the campaign as changed', ref('Campaign')) },
    errors: {
      400: 'VALIDATION_FAILED (details.field; a cron under campaigns.minPeriodMs: field cron, smallestGapMs, minPeriodMs)',
      404: `${campaign404}; LIST_NOT_FOUND for a template list`,
    },
  },
  'POST /api/v1/campaigns/:id/enable': {
    tag: 'campaigns',
    access: 'token',
    summary: 'Enable a campaign',
    responses: { 200: json('the campaign', ref('Campaign')) },
    errors: { 400: 'VALIDATION_FAILED', 404: campaign404 },
  },
  'POST /api/v1/campaigns/:id/disable': {
    tag: 'campaigns',
    access: 'token',
    summary: 'Disable a campaign',
    responses: { 200: json('the campaign', ref('Campaign')) },
    errors: { 400: 'VALIDATION_FAILED', 404: campaign404 },
  },
  'DELETE /api/v1/campaigns/:id': {
    tag: 'campaigns',
    access: 'token',
    summary: 'Delete a campaign and its history',
    responses: { 204: { description: 'deleted', schema: null } },
    errors: { 400: 'VALIDATION_FAILED', 404: campaign404 },
  },
  'GET /api/v1/campaigns/:id/firings': {
    tag: 'campaigns',
    access: 'token',
    summary: "A campaign's firing history, newest first, a page at a time",
    responses: { 200: json('a page', ref('FiringPage')) },
    errors: { 400: 'VALIDATION_FAILED', 404: campaign404 },
  },

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

  'GET /api/v1/me': {
    tag: 'access',
    access: 'token',
    summary: 'The calling token',
    responses: { 200: json('who the token is', ref('Me')) },
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
    responses: { 200: json('a page', ref('AuditPage')) },
    errors: { 400: 'VALIDATION_FAILED' },
  },
};

/** The key of a route in OPERATIONS. */
export const operationKey = (method: string, url: string): string => `${method} ${url}`;
