/**
 * The schemas of recipient lists, account limits, audience jobs, user
 * attributes and dry runs (split from components.ts, which assembles the
 * document's `components.schemas` from these and its own).
 */
import { BAD_ROW_REASONS } from '@herald/core/ports';
import { FILTER_REASONS } from '@herald/core/task';
import { AGE_BANDS, GENDERS } from '@herald/core/targeting';
import { accountId, epochMs, integer, nullable, object, type JsonSchema } from './schema-builders';

export const listFields = {
  id: { type: 'string', description: 'the list id to send to' },
  accountId,
  count: integer('recipients'),
  checksum: integer('CRC-32 of the stored file body'),
  sorted: { type: 'boolean' },
  unique: { type: 'boolean' },
  bytes: integer('size of the stored binary file'),
  createdAt: epochMs('stored'),
} satisfies Record<string, JsonSchema>;
export const LIST_REQUIRED = Object.keys(listFields);

export const limits = (description: string): JsonSchema =>
  object(
    {
      dailyBroadcasts: integer('broadcasts whose send time falls on one day'),
      dailyRecipients: integer('recipients (list sizes) summed over those broadcasts'),
      minIntervalMs: integer('least time between the send times of two broadcasts, ms'),
      maxSpeed: integer('the fastest a task may ask to be sent, recipients/s; 0: the account may not set a speed'),
    },
    ['dailyBroadcasts', 'dailyRecipients', 'minIntervalMs', 'maxSpeed'],
    description,
  );

export const accountLimits = object(
  {
    accountId,
    limits: limits('in force: what the next broadcast is decided by'),
    base: limits('the defaults with the override applied, before the click-through factor'),
    override: {
      type: 'object',
      additionalProperties: { type: 'integer' },
      description: "the account's own limits, by name ({} none)",
    },
    confirmation: object(
      {
        confirmAbove: integer(
          'recipients above which a broadcast starting within confirmWithinMs needs "confirm": <count>',
        ),
        confirmWithinMs: integer('how soon, ms, such a broadcast must start to need it'),
      },
      ['confirmAbove', 'confirmWithinMs'],
      'when a broadcast needs an explicit confirm: the override over accounts.defaultLimits, never scaled by the click-through rate',
    ),
    clickThroughRate: nullable('number', "the last broadcast's clicks / delivered; null: unknown"),
    factor: { type: 'number', description: 'clamp(rate / referenceRate, minFactor, maxFactor); 1 with no rate' },
    usage: object(
      { broadcasts: integer('reserved to send today'), recipients: integer('their recipients') },
      ['broadcasts', 'recipients'],
      "today's usage (the local day of accounts.utcOffsetMinutes)",
    ),
    dayStartsAt: epochMs("today's start"),
    nextResetAt: epochMs('when the daily quotas start again'),
    lastBroadcastAt: nullable('integer', 'the latest reserved send time at or before now (epoch ms)'),
    nextBroadcastAt: nullable('integer', 'the earliest reserved send time at or after now (epoch ms)'),
    updatedAt: nullable('integer', 'when an admin last changed the settings (epoch ms); null: never'),
  },
  [
    'accountId',
    'limits',
    'base',
    'override',
    'confirmation',
    'clickThroughRate',
    'factor',
    'usage',
    'dayStartsAt',
    'nextResetAt',
    'lastBroadcastAt',
    'nextBroadcastAt',
    'updatedAt',
  ],
);

export const badRows: JsonSchema = {
  type: 'object',
  description: 'rows that were not a uin, by reason',
  additionalProperties: false,
  properties: Object.fromEntries(BAD_ROW_REASONS.map((reason) => [reason, { type: 'integer' }])),
};

export const audienceJob = object(
  {
    id: { type: 'string', description: 'job id, `a_...`' },
    accountId,
    source: {
      type: 'object',
      required: ['kind'],
      additionalProperties: true,
      properties: { kind: { type: 'string', enum: ['followers', 'targeting', 'table'] } },
      description: 'the source as asked: its kind and what it reads (query, table, column, where)',
    },
    state: { type: 'string', enum: ['running', 'done', 'failed', 'cancelled'] },
    listId: { type: 'string', description: 'the list the job writes: GET /api/v1/lists/:id once done' },
    createdAt: epochMs('started'),
    finishedAt: nullable('integer', 'when it ended (epoch ms)'),
    progress: object({ uins: integer('valid uins written so far'), bad: badRows }, ['uins', 'bad']),
    list: object(listFields, LIST_REQUIRED, 'when done: the stored list'),
    report: object(
      {
        valid: integer('uins the source gave'),
        bad: object({ total: { type: 'integer' }, byReason: badRows }, ['total', 'byReason']),
      },
      ['valid', 'bad'],
      'when done: what the source gave',
    ),
    error: object(
      {
        code: { type: 'string' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
      },
      ['code', 'message'],
      'when failed: why, as an API error',
    ),
  },
  ['id', 'accountId', 'source', 'state', 'listId', 'createdAt', 'finishedAt', 'progress'],
);

export const userAttributes = object(
  {
    uin: integer('the user', { minimum: 0 }),
    region: nullable('string', 'e.g. cn-gd'),
    gender: { type: ['string', 'null'], enum: [...GENDERS, null] },
    ageBand: { type: ['string', 'null'], enum: [...AGE_BANDS, null] },
    activeAt: nullable('integer', 'last activity (epoch ms); its UTC day is what `active-since` compares'),
    tags: { type: 'array', items: { type: 'string' } },
    tz: nullable(
      'string',
      "the user's time zone, an IANA name or '+HH:MM': local-time tasks release the user by it (docs/local-time.md)",
    ),
  },
  ['uin'],
  "a user's targeting attributes",
);

export const dryRun = object(
  {
    dryRun: { type: 'boolean', enum: [true] },
    recipients: object(
      {
        listed: integer('recipients in the list (list.count)'),
        kept: nullable('integer', "left after the task's real filter chain; null: this process cannot run the chain"),
        removed: {
          type: ['object', 'null'],
          description: 'recipients the chain would remove, by filter reason (the same reasons as TaskReport.removed)',
          additionalProperties: false,
          properties: Object.fromEntries(FILTER_REASONS.map((reason) => [reason, { type: 'integer' }])),
        },
        sampled: integer(
          'present for a list over 4194304 recipients: the evenly spaced sample filtered, the counts scaled from it',
        ),
      },
      ['listed', 'kept', 'removed'],
    ),
    confirmationRequired: {
      type: 'boolean',
      description: 'a create needs "confirm": <listed> (docs/account-quotas.md, "Confirmation")',
    },
    sendAt: epochMs('when the task would start, as Task.sendAt (an immediate task: now + tasks.undoGraceMs)'),
    expiresAt: epochMs('when it would expire'),
    estimatedSendMs: nullable(
      'integer',
      'kept / speed, ms, for a task with a speed; null without one (the cluster load decides)',
    ),
  },
  ['dryRun', 'recipients', 'confirmationRequired', 'sendAt', 'expiresAt', 'estimatedSendMs'],
  'what POST /api/v1/tasks would do; nothing was created, held or sent',
);
