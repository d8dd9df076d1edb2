/*
 * What the OpenAPI document says about each route, keyed by method and route
 * pattern ('GET /api/v1/tasks/:id'). The routes keep their own validation
 * schemas (params, querystring, body); this table adds what only a reader
 * needs: summary, tag, who may call it, the answers by status and the bodies
 * that are not JSON (uploads). openapi.test.ts fails for a registered
 * /api/v1 route without an entry here, and for an entry without a route.
 */
import { ref } from './schema-builders';
import { ACCOUNT_OPERATIONS } from './account-operations';
import { DEVICE_OPERATIONS } from './device-operations';
import { RECORD_OPERATIONS } from './record-operations';
import { HISTORY_DEFAULT_LIMIT, HISTORY_MAX_LIMIT, HISTORY_SCAN_BUDGET } from '../recipient-history';
import { ACCOUNT_404, LIST_ERRORS, TASK_ID, campaign404, json, task404, type OperationDoc } from './operation-parts';

/** The same three operations on the global blacklist (admin) and on an account's (its operators). */
function blacklistOperations(...methods: ('PUT' | 'GET' | 'DELETE')[]): Record<string, OperationDoc> {
  const targets: { path: string; access: 'admin' | 'token'; whose: string; errors: Record<number, string> }[] = [
    { path: '/api/v1/blacklists/global', access: 'admin', whose: 'the global blacklist', errors: {} },
    {
      path: '/api/v1/accounts/:accountId/blacklist',
      access: 'token',
      whose: "an account's blacklist",
      errors: { 404: ACCOUNT_404 },
    },
  ];
  const docs: Record<string, OperationDoc> = {};
  for (const { path, access, whose, errors } of targets) {
    for (const method of methods) {
      const doc = BLACKLIST_OPERATIONS[method](whose);
      docs[`${method} ${path}`] = { ...doc, access, errors: { ...doc.errors, ...errors } };
    }
  }
  return docs;
}

const BLACKLIST_OPERATIONS: Record<'PUT' | 'GET' | 'DELETE', (whose: string) => Omit<OperationDoc, 'access'>> = {
  PUT: (whose) => ({
    tag: 'lists',
    summary: `Replace ${whose}`,
    description:
      'The dispatcher removes these uins from every task it pre-processes from now on (reason `blacklisted`); the global blacklist applies to every account. The body is a list as POST /api/v1/lists takes it: binary, or text/plain or text/csv with the same `column`, `header`, `delimiter` and `maxBadRatio`; nothing changes unless the whole upload is accepted.',
    responses: { 200: json('stored; `import` for a text/CSV upload', ref('UploadedList')) },
    errors: LIST_ERRORS,
    rawBody: {
      description: 'the blacklist: binary, or text with one uin a line, or CSV',
      contentTypes: ['application/octet-stream', 'text/plain', 'text/csv'],
    },
  }),
  GET: (whose) => ({
    tag: 'lists',
    summary: `Read ${whose}`,
    description:
      'Its metadata: how many uins, and when it last changed. With `download=true`, its uins as CSV (a `uin` header line, then one uin a line in stored order), streamed from the file with bounded memory; one never set or cleared downloads as the header line alone.',
    responses: {
      200: json('the metadata, or with download=true the uins', {
        content: {
          'application/json': { schema: ref('Blacklist') },
          'text/csv': { schema: { type: 'string', description: 'a `uin` header line, then one uin a line' } },
        },
      }),
    },
    errors: { 400: 'VALIDATION_FAILED: an unknown query parameter, or a download that is not true or false' },
  }),
  DELETE: (whose) => ({
    tag: 'lists',
    summary: `Clear ${whose}`,
    description:
      'Tasks pre-processed from now on remove no uin for it. Answers the metadata, count 0 and `updatedAt` the time it was cleared; clearing one that is empty changes nothing else.',
    responses: { 200: json('cleared', ref('Blacklist')) },
  }),
};

export { TAGS, type Access, type OperationDoc, type Tag } from './operation-parts';

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
  ...blacklistOperations('PUT', 'GET', 'DELETE'),

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
      400: 'VALIDATION_FAILED: a schema violation (a speed that is not an integer in [1, 10^8] among them), content over tasks.maxContentChars, a sendAt or displayAt that is not an RFC 3339 date-time with an offset or not on the calendar, a sendAt in the past (omit it to send now) or beyond tasks.maxScheduleAheadMs, ttlSeconds over the maximum, a collapseKey that is not 1..128 characters of [A-Za-z0-9._:-], a deliverAt with a localTime that is not HH:MM, a window outside 1m..12h or not shorter than the task lives, an unknown missed policy, defaultTimeZone or field (details.field deliverAt.<name>; docs/local-time.md), quietHours that are not HH:MM-HH:MM or { hours, during: hold | offline }, cover the whole day, or carry an unknown field or during (details.field quietHours, quietHours.hours, quietHours.during, quietHours.<name>), variants or a holdout that do not parse or whose shares do not add up to 1 - holdout (details.field variants, variants[i].share, holdout...), a canary that does not parse or comes with deliverAt or quietHours, an account default included (details.field canary; docs/rollouts.md), a bad Idempotency-Key (details.field names the input); QUERY_INVALID: a targeting query that does not parse (details.field targeting, position, found, expected); nothing was created',
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
      'Oldest first. An operator sees its accounts only; filtering by another account answers an empty page. `q` finds text in the title or body, ignoring case (digits also match the id); a search page may be short or empty and still carry a nextCursor: the embedded profile reads a bounded number of tasks per page.',
    responses: { 200: json('a page', ref('TaskPage')) },
    errors: {
      400: 'VALIDATION_FAILED: a bad filter, a q that is empty or over 200 characters, or a createdFrom or createdBefore that is not an RFC 3339 date-time with an offset (details.field)',
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
  'GET /api/v1/tasks/:id/progress': {
    tag: 'tasks',
    access: 'token',
    summary: "A task's progress over time, its rate and ETA, and why it waits",
    description:
      "The curve of confirmed counts its owning scheduler recorded from its first sample (one a second, thinned as it ages; kept across a scheduler failover), the rate over its last 10 s and the ETA from it while it sends, and for a queued task why it waits. Same access as the task: another account's task answers 404.",
    responses: { 200: json('the progress', ref('TaskProgress')) },
    errors: { 400: 'VALIDATION_FAILED: the id is not a positive integer', 404: task404 },
    params: { id: TASK_ID },
  },
  'GET /api/v1/tasks/:id/recipients/:uin': {
    tag: 'tasks',
    access: 'token',
    summary: "A recipient's fate in a task",
    description:
      'What happened to one uin in this task (docs/recipient-truth.md): not in the audience; removed by a filter link (`link`); delivered online (`at`, `executor`); queued offline (`at`, `executor`) and then (`then`) waiting, delivered at login, expired or dropped at login; not reached (`taskState`, `why`); or `unknown` with its `reason` where the records cannot tell, never a wrong "not delivered". Same access as the task.',
    responses: { 200: json("the recipient's fate", ref('RecipientFate')) },
    errors: {
      400: 'VALIDATION_FAILED: the id is not a positive integer, or the uin is not an integer inside the uin space (details.field names which)',
      404: task404,
      409: 'TASK_NOT_PREPROCESSED: the task has not filtered its list yet; ask again once it is sending',
    },
    params: {
      id: TASK_ID,
      uin: { type: 'string', pattern: '^[0-9]{1,16}$', description: 'the recipient, below uinLimit' },
    },
  },
  'GET /api/v1/tasks/:id/funnel': {
    tag: 'tasks',
    access: 'token',
    summary: "A task's funnel: its audience through each filter link to delivery",
    description:
      'The audience, what each filter link removed in chain order and what was left after it, the kept recipients as delivered online (of which rejected by the channel), queued offline, not reached or unknown, and the offline entries as delivered at login, waiting, expired or dropped at login: each count as the delivery report\'s rows counted by fate. A count the records cannot back is `unknown` with its `reason` (on the production profile, an executor host that did not answer: "host executor-2 unreachable"). A task not filtered yet answers its audience. Same access as the task: another account\'s task answers 404. docs/recipient-truth.md, "The funnel".',
    responses: { 200: json("the task's funnel", ref('TaskFunnel')) },
    errors: { 400: 'VALIDATION_FAILED: the id is not a positive integer', 404: task404 },
    params: { id: TASK_ID },
  },
  'GET /api/v1/recipients/:uin/history': {
    tag: 'tasks',
    access: 'token',
    summary: "A recipient's broadcasts from one account, newest first",
    description: `Every task of \`accountId\` created in [\`from\`, \`to\`) (default: the 30 days before now) in which the uin was in the audience, newest first, each with its fate there as GET /api/v1/tasks/:id/recipients/:uin answers it; tasks where it was not in the audience are left out, and a task whose list is not filtered yet is listed with fate \`unknown\`. A page reads at most ${HISTORY_SCAN_BUDGET} tasks (a constant) and stops at \`limit\` entries (default ${HISTORY_DEFAULT_LIMIT}, at most ${HISTORY_MAX_LIMIT}): it may hold fewer entries than asked, even none, and still carry a \`nextCursor\`; read on until it is null. An account the token does not name answers 404, as a missing one. docs/recipient-truth.md, "A recipient's history".`,
    responses: { 200: json('a page of the history', ref('RecipientHistory')) },
    errors: {
      400: 'VALIDATION_FAILED: a missing or malformed accountId, a uin that is not an integer inside the uin space, a from or to that is not an RFC 3339 date-time with an offset or not a real date, from after to, a cursor that is not `<uin>-<taskId>` of this uin, an unknown query parameter (details.field names which)',
      404: ACCOUNT_404,
    },
    params: { uin: { type: 'string', pattern: '^[0-9]{1,16}$', description: 'the recipient, below uinLimit' } },
  },
  'GET /api/v1/tasks/:id/report': {
    tag: 'tasks',
    access: 'token',
    summary: "A task's delivery report: every recipient with its fate",
    description:
      "Every distinct uin of the task's audience in ascending order (its filtered list and each filter link's removed set, merged), each with the fate GET /api/v1/tasks/:id/recipients/:uin answers for it, streamed with bounded memory. CSV (`uin,position,fate,detail,at,executor,then_at`, and a last `variant` column for an A/B task; times RFC 3339) by default; one JSON object a line (the per-recipient answer) with `Accept: application/x-ndjson`. `cursor=<taskId>-<uin>` resumes after that uin (a stream cut short resumes from its last row). Same access as the task: another account's task answers 404. docs/recipient-truth.md, \"The delivery report\".",
    responses: {
      200: json('the report, streamed', {
        content: {
          'text/csv': { schema: { type: 'string', description: 'a header line, then one row a recipient' } },
          'application/x-ndjson': { schema: { type: 'string', description: 'one RecipientFate a line' } },
        },
      }),
    },
    errors: {
      400: 'VALIDATION_FAILED: the id is not a positive integer, an unknown query parameter, or a cursor that is not `<taskId>-<uin>` of this task with a uin inside the uin space (details.field names which)',
      404: task404,
      409: 'TASK_NOT_PREPROCESSED: the task has not filtered its list (yet, or ever: it ended before); ask again once it is sending',
    },
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
  'POST /api/v1/tasks/:id/promote': {
    tag: 'tasks',
    access: 'token',
    summary: "Send a canary's rest now",
    description:
      'A canary task still sampling (SENDING, report.canary.state sampling) is marked promoted and its scheduler runs the rest on its next tick, without waiting for the hold or the judgement; a canary that paused itself (PAUSED, report.canary.state failed) is marked promoted and resumed. Aborting a canary is POST /api/v1/tasks/:id/cancel. docs/rollouts.md, "Canary".',
    responses: { 202: json('accepted', ref('TaskCommandAccepted')) },
    errors: {
      400: 'VALIDATION_FAILED: the id is not a positive integer',
      404: task404,
      409: 'ILLEGAL_TRANSITION: the task is not a canary that is sampling or that paused itself',
    },
    params: { id: TASK_ID },
  },

  'POST /api/v1/tasks/:id/engagement': {
    tag: 'tasks',
    access: 'token',
    summary: "Report the clicks a task's message got",
    description:
      'An app backend reports running totals { clicks, opens? } for the task; the stored totals only grow (a smaller total changes nothing), so a retry never counts twice. A canary with thresholds.minClickThrough is judged on clicks over its sample after the hold, only once engagement was reported, and pauses itself below it. docs/rollouts.md, "Click-through".',
    responses: { 200: json("the task's engagement as stored", ref('TaskEngagementAnswer')) },
    errors: {
      400: 'VALIDATION_FAILED: the id is not a positive integer, or a count is missing, not a whole number in 0..10^12, or unknown (details.field)',
      404: task404,
      409: 'FENCED: the task changed owner between the read and the write: report again',
    },
    params: { id: TASK_ID },
  },

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
      'A cron that fires closer together than campaigns.minPeriodMs anywhere in its next 1000 firings is refused (400 naming cron; details.smallestGapMs, minPeriodMs). The answer carries projectedDailyReach. `template.noResend` sets what counts as already sent for each firing (`{ "scope": "firing" }` for a daily digest, `{ "scope": "window", "window": "7d" }`); a template content may name `{{firing.date}}`, `{{firing.time}}`, `{{firing.id}}` (docs/campaigns.md).',
    responses: {
      201: json('created', ref('Campaign')),
      200: json('a retry with the same Idempotency-Key and body: the campaign the first try created', ref('Campaign')),
    },
    errors: {
      400: 'VALIDATION_FAILED (details.field; a cron under campaigns.minPeriodMs: field cron, smallestGapMs, minPeriodMs; an unknown noResend scope, a bad or misplaced window, an unknown field: template.noResend.<field>; a bad Idempotency-Key header: field Idempotency-Key)',
      404: 'LIST_NOT_FOUND: no such list for the account, or an account the token does not name',
      409: 'IDEMPOTENCY_KEY_REUSED: the Idempotency-Key created another campaign (details.campaignId)',
    },
  },
  'GET /api/v1/campaigns': {
    tag: 'campaigns',
    access: 'token',
    summary: 'List campaigns, a page at a time',
    description:
      '`q` finds text in the name or the template title or body, ignoring case (digits also match the id); a search page may be short or empty and still carry a nextCursor: the embedded profile reads a bounded number of campaigns per page.',
    responses: { 200: json('a page', ref('CampaignPage')) },
    errors: { 400: 'VALIDATION_FAILED: a bad filter, or a q that is empty or over 200 characters (details.field)' },
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
  'POST /api/v1/campaigns/:id/run': {
    tag: 'campaigns',
    access: 'token',
    summary: 'Fire a campaign once now, outside its schedule',
    description:
      "The same firing as a scheduled one (the template's task, the no-resend scope, the account's quotas), enabled or not; recorded in the firing history with `manual: true`. An `Idempotency-Key` header makes a retry answer the first run (200) instead of firing again. The body is optional: `confirm` is the list's recipient count when the account's confirmation rule asks for it, as for a task.",
    responses: {
      201: json('the manual firing, with the task it created', ref('Firing')),
      200: json('a retry with the same Idempotency-Key: the firing the first try made; nothing fired', ref('Firing')),
    },
    errors: {
      400: 'VALIDATION_FAILED (details.field; a bad Idempotency-Key header: field Idempotency-Key)',
      404: `${campaign404}; LIST_NOT_FOUND: the template's list is gone`,
      409: 'CONFIRMATION_REQUIRED (details.recipients); IDEMPOTENCY_KEY_REUSED: the Idempotency-Key ran another campaign (details.campaignId)',
      422: 'ACCOUNT_QUOTA_EXCEEDED (details.limit)',
    },
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
    description:
      "Each fired firing carries `note`: `reached_nobody_already_sent` with a message when its task's no-resend filter removed everyone it had left (a campaign of unchanging content under scope 'content'); null otherwise.",
    responses: { 200: json('a page', ref('FiringPage')) },
    errors: { 400: 'VALIDATION_FAILED', 404: campaign404 },
  },
  ...ACCOUNT_OPERATIONS,
  ...DEVICE_OPERATIONS,
  ...RECORD_OPERATIONS,
};

/** The key of a route in OPERATIONS. */
export const operationKey = (method: string, url: string): string => `${method} ${url}`;
