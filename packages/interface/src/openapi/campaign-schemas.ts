/**
 * Schemas of the campaign answers' no-resend parts (docs/campaigns.md,
 * "No-resend scope"): a template's `noResend` and a firing's `note`.
 */
import { FIRING_OUTCOMES, NO_RESEND_SCOPES } from '@herald/core/campaign';
import { accountId, epochMs, integer, nullable, object, type JsonSchema } from './schema-builders';

export const noResend: JsonSchema = object(
  {
    scope: { type: 'string', enum: [...NO_RESEND_SCOPES] },
    window: {
      type: 'string',
      pattern: '^[1-9][0-9]{0,5}[mhd]$',
      description: "scope window only: minutes, hours or days (calendar days in the campaign's zone), at most 366d",
    },
  },
  ['scope'],
  "what counts as already sent for a firing: 'content' every earlier send of the content (absent: this), 'firing' none before this firing, 'window' the sends within the window",
);

export const firingNote: JsonSchema = {
  ...object({ code: { type: 'string', enum: ['reached_nobody_already_sent'] }, message: { type: 'string' } }, [
    'code',
    'message',
  ]),
  type: ['object', 'null'],
  description:
    "what a fired firing came to, in words: 'reached_nobody_already_sent' when its task's no-resend filter removed everyone it had left; null otherwise",
};

/** A campaign's fields (docs/campaigns.md); `content` is the task's content schema, shared. */
export function campaignFieldsOf(content: JsonSchema) {
  return {
    id: integer('campaign id', { minimum: 1 }),
    accountId,
    name: { type: 'string' },
    cron: { type: 'string', description: 'docs/campaigns.md, "Cron syntax"' },
    timeZone: { type: 'string', description: 'IANA name, canonical spelling' },
    enabled: { type: 'boolean' },
    template: object(
      {
        listId: { type: 'string' },
        content,
        priority: { type: 'string', enum: ['realtime', 'normal'] },
        ttlSeconds: { type: 'integer', minimum: 1 },
        targeting: {
          type: 'string',
          description: "each firing's task is targeted with this query (POST /api/v1/tasks targeting)",
        },
        noResend,
        deliverAt: {
          type: 'object',
          description:
            "each firing's task is delivered at this local time, as written (POST /api/v1/tasks deliverAt; docs/local-time.md)",
        },
        quietHours: {
          description:
            "each firing's task's quiet hours, as written: 'HH:MM-HH:MM' or { hours: 'HH:MM-HH:MM', during: 'hold' | 'offline' }",
        },
        collapseKey: {
          type: 'string',
          description: "each firing's task's collapse key: a firing supersedes the one before it in offline lists",
        },
        canary: {
          type: 'object',
          description:
            "each firing's task starts as this canary (POST /api/v1/tasks canary; docs/rollouts.md); each firing draws its own sample",
        },
        variants: {
          type: 'array',
          description:
            "each firing's task's A/B variants (POST /api/v1/tasks variants); their content may name firing variables",
        },
        holdout: { type: 'number', description: "each firing's A/B holdout share; absent: none" },
      },
      ['listId', 'content', 'priority'],
      'the task each firing creates',
    ),
    createdAt: epochMs('created'),
    updatedAt: epochMs('last changed'),
    activeFrom: epochMs('when the current schedule took effect'),
    lastScheduledAt: epochMs('the last scheduled time handled (fired or missed), absent before the first'),
    idempotencyKey: {
      type: 'string',
      description: 'the stored key, `api:<accountId>:<Idempotency-Key>`, when the creating request carried one',
    },
    nextFireTimes: {
      type: 'array',
      items: { type: 'string', format: 'date-time' },
      description: 'the next fire times (ISO 8601, UTC); none while disabled',
    },
    projectedDailyReach: object(
      {
        firingsPerDay: {
          type: 'number',
          minimum: 0,
          description: 'firings a day, averaged over the next seven days (enabled or not)',
        },
        recipientsPerFiring: nullable(
          'integer',
          "the template list's recipients, before the filter chain; null: the list is gone",
        ),
        recipientsPerDay: nullable('integer', 'firingsPerDay x recipientsPerFiring, rounded'),
      },
      ['firingsPerDay', 'recipientsPerFiring', 'recipientsPerDay'],
      'what the campaign would send a day (docs/campaigns.md, "Period and reach")',
    ),
  } satisfies Record<string, JsonSchema>;
}

/** One handled scheduled time of a campaign (GET /api/v1/campaigns/:id/firings). */
export const firing = object(
  {
    campaignId: { type: 'integer' },
    scheduledAt: epochMs('the scheduled time'),
    outcome: { type: 'string', enum: [...FIRING_OUTCOMES] },
    taskId: nullable('integer', 'the task it created'),
    reason: nullable('string', 'why it was missed or failed'),
    at: epochMs('when it was handled'),
    manual: {
      type: 'boolean',
      enum: [true],
      description:
        'present (true) on a run asked for with POST /api/v1/campaigns/:id/run; absent on the schedule’s own',
    },
    note: firingNote,
  },
  ['campaignId', 'scheduledAt', 'outcome', 'taskId', 'reason', 'at', 'note'],
);
