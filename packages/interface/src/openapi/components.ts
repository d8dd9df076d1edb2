/*
 * The shapes the API answers with, as JSON Schema (draft-07 keywords that
 * OpenAPI 3.0 shares; a nullable field is `type: [T, 'null']`, which
 * @fastify/swagger writes as `nullable: true`). They become the document's
 * `components.schemas`; routes refer to them as `#/components/schemas/<Name>`.
 *
 * Objects list every field and set `additionalProperties: false`, so the
 * document test (openapi.test.ts), which checks real answers against these
 * schemas, fails when an answer gains a field the document does not tell.
 */

import { ROLES } from '@herald/core/access';
import { ErrorCodes } from '@herald/core';
import { CHANNEL_HOLD_STATES, FILTER_REASONS, TASK_STATES } from '@herald/core/task';
import { accountId, epochMs, integer, nullable, object, page, ref, type JsonSchema } from './schema-builders';
import { LIST_REQUIRED, accountLimits, audienceJob, dryRun, listFields, userAttributes } from './account-schemas';
import { taskProgress } from './progress-schemas';
import { campaignFieldsOf, firing } from './campaign-schemas';
import { cluster } from './cluster-schemas';
import { recipientFate, recipientHistory, taskFunnel } from './fate-schemas';
import { canaryReport, engagement, taskEngagementAnswer } from './rollout-schemas';

export { ref, type JsonSchema } from './schema-builders';

const content = object(
  {
    body: { type: 'string', description: 'the text pushed to each recipient' },
    title: { type: 'string' },
    template: {
      type: 'boolean',
      description:
        'true: body and title are templates, `{{variable}}` or `{{variable|default:"text"}}` filled per recipient from the user attributes (docs/delivery.md, "Personalised content"); the stored task carries it only when true',
    },
  },
  ['body'],
);

const errorBody = object(
  {
    error: object(
      {
        code: {
          type: 'string',
          enum: Object.values(ErrorCodes),
          description: 'stable: branch on it (docs/api.md lists each status and its codes)',
        },
        message: { type: 'string', description: 'for people; its wording may change' },
        details: {
          type: 'object',
          additionalProperties: true,
          description: 'facts about the error, e.g. `field` for a bad input, `retryAfterMs` for RATE_LIMITED',
        },
      },
      ['code', 'message'],
    ),
  },
  ['error'],
  'Every error answers this body, whatever the status.',
);

const taskReport = object(
  {
    total: integer('recipients in the list as uploaded'),
    kept: integer('recipients left after the filter chain'),
    removed: {
      type: 'object',
      description: 'recipients removed, by filter reason',
      additionalProperties: false,
      properties: Object.fromEntries(FILTER_REASONS.map((reason) => [reason, { type: 'integer' }])),
    },
    delivered: integer('pushed to online users'),
    offline: integer('appended to offline lists, delivered at the next login'),
    units: integer('execution units planned'),
    unitsDone: integer('units finished'),
    deadLetters: {
      type: 'object',
      description:
        'recipients the delivery channel rejected for good, by its reason (a token of [a-z0-9_.-]); never sent again, not in delivered. Absent: none (docs/delivery.md, "Dead letters")',
      additionalProperties: { type: 'integer', minimum: 0 },
    },
    channel: {
      ...object(
        {
          state: { type: 'string', enum: [...CHANNEL_HOLD_STATES] },
          reason: { type: 'string', description: "the channel's own words: its Retry-After, its last failure" },
        },
        ['state', 'reason'],
      ),
      type: ['object', 'null'],
      description:
        'set while the delivery channel holds the sending task (it stays SENDING and resumes by itself); null or absent while it sends',
    },
    canary: canaryReport,
    engagement,
    localGroups: {
      type: 'array',
      description:
        "a local-time task's groups in release order, once pre-processed (docs/local-time.md); absent for a task of one instant",
      items: object(
        {
          offsetMinutes: { type: 'integer', description: "the group's UTC offset at its release, minutes east" },
          releaseAt: epochMs("when its units may start: its recipients' local time"),
          start: integer("its first position in the task's delivery-order list"),
          end: integer('one past its last position'),
          skipped: {
            type: 'boolean',
            description: 'missed its local time (missed: skip) or released after expiry: never sent',
          },
          released: { type: 'boolean', description: 'its units have been handed out' },
          delivered: integer('pushed to online users of the group'),
          offline: integer('queued offline for users of the group'),
        },
        ['offsetMinutes', 'releaseAt', 'start', 'end', 'skipped', 'released', 'delivered', 'offline'],
      ),
    },
  },
  ['total', 'kept', 'removed', 'delivered', 'offline', 'units', 'unitsDone'],
);

const task = object(
  {
    id: integer('task id', { minimum: 1 }),
    accountId,
    listId: { type: 'string' },
    content,
    contentCrc: integer('CRC-32 of the content: the no-resend filter compares it'),
    priority: { type: 'string', enum: ['realtime', 'normal'] },
    sendAt: epochMs('when sending starts'),
    expiresAt: epochMs('after this, unsent units and offline entries are dropped'),
    listCount: integer('recipients in the list at creation'),
    idempotencyKey: {
      type: 'string',
      description: 'the stored key, `api:<accountId>:<Idempotency-Key>`, when the request carried one',
    },
    displayAt: epochMs('when clients show the message, when set'),
    speed: nullable(
      'integer',
      'recipients per second the task is sent at, as asked at creation; null: none asked (as fast as the hosts allow)',
    ),
    targeting: nullable(
      'string',
      'a targeted task: the targeting query its recipients must also match (removed.targeting counts the others); null: untargeted',
    ),
    collapseKey: {
      type: 'string',
      description:
        "when set: a newer task of the account with the same key supersedes this one in offline lists (docs/delivery.md, 'Collapse keys')",
    },
    rollout: {
      type: 'object',
      description:
        "safe rollouts (docs/rollouts.md): { seed, canary?, variants?, holdout? }; each recipient's place (canary sample, variant) is a hash of its uin and the seed. Absent: one content for everyone, no canary",
    },
    deliverAt: object(
      {
        localTime: { type: 'string', description: "the wall-clock time 'HH:MM' each recipient's zone is released at" },
        windowMs: integer('how late after its local time a zone may still be sent when the task is planned, ms'),
        missed: { type: 'string', enum: ['next_day', 'skip', 'now'] },
        defaultTimeZone: {
          type: 'string',
          description: "the zone of recipients without a tz attribute (IANA or '+HH:MM')",
        },
      },
      ['localTime', 'windowMs', 'missed', 'defaultTimeZone'],
      'local-time delivery, when set (docs/local-time.md)',
    ),
    quietHours: object(
      {
        from: { type: 'string', description: "local 'HH:MM' the quiet hours start at (inclusive)" },
        to: { type: 'string', description: "local 'HH:MM' they end at; before from: they wrap past midnight" },
        during: {
          type: 'string',
          enum: ['offline'],
          description:
            "present when the request said during: 'offline': a push that would land inside them is queued to the recipient's offline list instead of held",
        },
        atLogin: {
          type: 'string',
          enum: ['hold'],
          description:
            "present when the account's loginDelivery is 'hold': a login inside them keeps this task's entry for a login after them",
        },
      },
      ['from', 'to'],
      "quiet hours in each recipient's local time, when set: a zone inside them is held to their end, or with during 'offline' queued offline (docs/local-time.md)",
    ),
    noResendSince: nullable(
      'integer',
      "how far back the no-resend filter looks (epoch ms): only earlier tasks of the content scheduled after it count; set by a campaign's no-resend scope; null: every earlier task",
    ),
    state: { type: 'string', enum: [...TASK_STATES] },
    version: integer('bumped by every write'),
    epoch: integer('bumped by every change of owner'),
    owner: nullable('string', 'the scheduler that owns it'),
    filteredListId: nullable('string', 'the filtered list, once pre-processed'),
    report: ref('TaskReport'),
    error: {
      ...object({ code: { type: 'string' }, message: { type: 'string' } }, ['code', 'message']),
      type: ['object', 'null'],
      description: 'why it FAILED (DELIVERY_REJECTED: the delivery channel refused a batch whole, docs/delivery.md)',
    },
    createdAt: epochMs('created'),
    updatedAt: epochMs('last written'),
  },
  [
    'id',
    'accountId',
    'listId',
    'content',
    'contentCrc',
    'priority',
    'sendAt',
    'expiresAt',
    'listCount',
    'speed',
    'targeting',
    'noResendSince',
    'state',
    'version',
    'epoch',
    'owner',
    'filteredListId',
    'report',
    'error',
    'createdAt',
    'updatedAt',
  ],
);

const textImport = object(
  {
    uploadBytes: integer('bytes of text uploaded'),
    format: { type: 'string', enum: ['lines', 'csv'] },
    lines: integer('physical lines read'),
    valid: integer('uins read (duplicates included)'),
    blank: integer('blank lines skipped'),
    header: {
      ...object({ line: { type: 'integer' }, fields: { type: 'array', items: { type: 'string' } } }, [
        'line',
        'fields',
      ]),
      type: ['object', 'null'],
    },
    column: integer("the uin's column, 1-based"),
    bad: {
      type: 'object',
      description: 'bad lines by reason, and their total',
      additionalProperties: { type: 'integer' },
      required: ['total'],
    },
    firstBad: {
      type: 'array',
      items: object({ line: { type: 'integer' }, reason: { type: 'string' } }, ['line', 'reason']),
    },
  },
  ['uploadBytes', 'format', 'lines', 'valid', 'blank', 'header', 'column', 'bad', 'firstBad'],
  'what the text import counted',
);

const accessToken = {
  id: { type: 'string', description: 'the public id, the part of the token before the secret' },
  name: { type: 'string' },
  role: { type: 'string', enum: [...ROLES] },
  accounts: { type: 'array', items: accountId, description: "an operator's accounts; empty for an admin" },
  createdAt: epochMs('made'),
  revokedAt: nullable('integer', 'when revoked (epoch ms); null while valid'),
} satisfies Record<string, JsonSchema>;

const campaignFields = campaignFieldsOf(content);

const auditEntry = object(
  {
    id: integer('increasing in append order'),
    at: epochMs('answered'),
    tokenId: { type: 'string' },
    tokenName: { type: 'string' },
    action: { type: 'string', description: "method and route pattern, e.g. 'POST /api/v1/tasks/:id/pause'" },
    accountId: nullable('string', 'the account the request named or touched'),
    resource: nullable('string', "what it touched, e.g. 'task:42'"),
    status: integer('the HTTP status answered'),
  },
  ['id', 'at', 'tokenId', 'tokenName', 'action', 'accountId', 'resource', 'status'],
);

export const COMPONENTS = {
  Error: errorBody,
  Task: task,
  TaskReport: taskReport,
  TaskProgress: taskProgress,
  TaskPage: page('tasks', ref('Task'), 'tasks with a larger id'),
  TaskDryRun: dryRun,
  RecipientFate: recipientFate,
  TaskFunnel: taskFunnel,
  RecipientHistory: recipientHistory,
  TaskEngagementAnswer: taskEngagementAnswer,
  TaskCommandAccepted: object(
    {
      taskId: { type: 'integer' },
      command: { type: 'string', enum: ['cancel', 'pause', 'resume', 'promote'] },
      accepted: { type: 'boolean', enum: [true] },
    },
    ['taskId', 'command', 'accepted'],
  ),
  List: object(listFields, LIST_REQUIRED, 'a stored recipient list (or blacklist)'),
  Blacklist: object(
    {
      scope: { type: 'string', enum: ['global', 'account'] },
      accountId: nullable('string', 'the account; null for the global blacklist'),
      listId: { type: 'string', description: 'the list id it is stored under' },
      count: integer('uins listed; 0 when never set or cleared', { minimum: 0 }),
      bytes: integer('size of the stored binary list; 0 when there is none', { minimum: 0 }),
      checksum: nullable('integer', "CRC-32 of the stored list's body; null when there is none"),
      updatedAt: nullable('integer', 'when it was last replaced or cleared (epoch ms); null when never', {
        minimum: 0,
      }),
    },
    ['scope', 'accountId', 'listId', 'count', 'bytes', 'checksum', 'updatedAt'],
    "a blacklist's metadata",
  ),
  UploadedList: object(
    { ...listFields, import: textImport },
    LIST_REQUIRED,
    'a stored recipient list; `import` for a text/CSV upload',
  ),
  Campaign: object(campaignFields, [
    'id',
    'accountId',
    'name',
    'cron',
    'timeZone',
    'enabled',
    'template',
    'createdAt',
    'updatedAt',
    'activeFrom',
    'nextFireTimes',
    'projectedDailyReach',
  ]),
  CampaignPage: page('campaigns', ref('Campaign'), 'campaigns with a larger id'),
  FiringPage: page('firings', firing, 'firings scheduled earlier'),
  Firing: firing,
  TemplatePreview: object(
    {
      uin: { type: 'integer' },
      content: object({ body: { type: 'string' }, title: { type: 'string' } }, ['body']),
      attributes: {
        type: 'string',
        enum: ['store', 'none', 'defaults'],
        description:
          "store: the user's attributes; none: the store has no such user; defaults: an operator's preview, or no attribute store",
      },
    },
    ['uin', 'content', 'attributes'],
  ),
  CronPreview: object(
    { cron: { type: 'string' }, timeZone: { type: 'string' }, nextFireTimes: campaignFields.nextFireTimes },
    ['cron', 'timeZone', 'nextFireTimes'],
  ),
  Cluster: cluster,
  AccountLimits: accountLimits,
  AudienceJob: audienceJob,
  AudienceJobList: page('jobs', ref('AudienceJob'), 'older jobs; `<createdAt>-<id>` of the last job', 'string'),
  UserAttributes: userAttributes,
  Me: object(
    {
      tokenId: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string', enum: [...ROLES] },
      accounts: { type: 'array', items: accountId },
    },
    ['tokenId', 'name', 'role', 'accounts'],
  ),
  Token: object(accessToken, Object.keys(accessToken)),
  NewToken: object(
    { ...accessToken, token: { type: 'string', description: 'the token, `hrd_<id>_<secret>`: shown this once' } },
    [...Object.keys(accessToken), 'token'],
  ),
  TokenList: page('tokens', ref('Token'), 'newer tokens; `<createdAt>-<id>` of the last token', 'string'),
  AuditPage: page('entries', auditEntry, 'older entries'),
  Health: object({ status: { type: 'string', enum: ['ok'] } }, ['status']),
} satisfies Record<string, JsonSchema>;

export type ComponentName = keyof typeof COMPONENTS;
