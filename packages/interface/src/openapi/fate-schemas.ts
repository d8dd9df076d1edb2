/*
 * GET /api/v1/tasks/:id/recipients/:uin's answer (docs/recipient-truth.md):
 * one recipient's fate in a task.
 */
import { FILTER_REASONS, TASK_STATES } from '@herald/core/task';
import { CHAIN_ORDER } from '@herald/core/fate';
import { HISTORY_SCAN_BUDGET } from '../recipient-history';
import { epochMs, integer, nullable, object, type JsonSchema } from './schema-builders';

export const recipientFate = object(
  {
    taskId: integer('the task'),
    uin: integer('the recipient'),
    position: integer(
      "its position in the task's filtered list, when it is there (a local-time task's: in its delivery-order list)",
    ),
    duplicateCopiesRemoved: integer('extra copies of it the dedupe link removed; its kept copy has the fate'),
    variant: { type: 'string', description: 'an A/B task: the variant it was given (held out: removed by held_out)' },
    localGroup: object(
      {
        releaseAt: epochMs('when its group is released: its local time'),
        offsetMinutes: { type: 'integer', description: 'the UTC offset of its zone then, minutes east' },
        skipped: { type: 'boolean', description: 'its zone missed the local time: never sent' },
        heldUntil: epochMs('while its sending is held for its quiet hours: when they end'),
      },
      ['releaseAt', 'offsetMinutes', 'skipped'],
      "a local-time task's group holding it (docs/local-time.md)",
    ),
    fate: {
      type: 'string',
      enum: ['not_in_audience', 'removed', 'delivered_online', 'rejected', 'queued_offline', 'not_reached', 'unknown'],
    },
    link: { type: 'string', enum: [...FILTER_REASONS], description: 'removed: the filter link that removed it' },
    at: epochMs('delivered_online, rejected, queued_offline: when its batch was confirmed'),
    executor: {
      type: 'string',
      description: 'delivered_online, rejected, queued_offline: the executor that confirmed its batch',
    },
    atLogin: { type: 'boolean', enum: [false] },
    then: object(
      {
        outcome: {
          type: 'string',
          enum: ['waiting', 'delivered_at_login', 'expired', 'dropped_at_login', 'unknown'],
        },
        at: epochMs('delivered_at_login, dropped_at_login: when the login walk settled it; expired: the expiry'),
        until: epochMs('waiting: when the entry expires'),
        why: { type: 'string', enum: ['expired', 'over_frequency'] },
        reason: { type: 'string', description: 'unknown: why' },
      },
      ['outcome'],
      'queued_offline: what became of the offline entry',
    ),
    taskState: { type: 'string', enum: [...TASK_STATES], description: 'not_reached: the task state' },
    why: { type: 'string', description: 'not_reached: why' },
    reason: {
      type: 'string',
      description:
        "unknown: what cannot be known, and why; rejected: the channel's reason (as the task's dead letters count it)",
    },
  },
  ['taskId', 'uin', 'fate'],
  "one recipient's fate in one task",
);

/** The document's `components.schemas`. */

const STAGES = [
  'audience',
  'removed',
  'kept',
  'delivered_online',
  'rejected',
  'queued_offline',
  'not_reached',
  'unknown',
  'delivered_at_login',
  'waiting',
  'expired',
  'dropped_at_login',
];
const countOrUnknown = (description: string) => ({
  description,
  oneOf: [
    { type: 'integer', minimum: 0 },
    { type: 'string', enum: ['unknown'] },
  ],
});

/** GET /api/v1/tasks/:id/funnel's answer (docs/recipient-truth.md, "The funnel"). */
export const taskFunnel = object(
  {
    taskId: integer('the task'),
    state: { type: 'string', enum: [...TASK_STATES] },
    at: epochMs('when it was counted (waiting and expired depend on it)'),
    stages: {
      type: 'array',
      description: 'the audience, each filter link in chain order, kept, then how the kept recipients stand',
      items: object(
        {
          stage: { type: 'string', enum: STAGES },
          of: { type: ['string', 'null'], enum: [...STAGES, null], description: 'the stage this one is a part of' },
          link: { type: 'string', enum: [...CHAIN_ORDER], description: 'removed: the filter link' },
          why: { type: 'string', enum: ['expired', 'over_frequency'], description: 'dropped_at_login: why' },
          count: countOrUnknown('how many; `unknown` where the records cannot tell, with `reason`'),
          reason: {
            type: 'string',
            description:
              'why the count is unknown (or, for the unknown stage, why they are); on a count made while an executor host did not answer, that it counts the hosts that answered, naming the other',
          },
          remaining: countOrUnknown('removed: recipients left after this link'),
          byReason: {
            type: 'object',
            additionalProperties: { type: 'integer', minimum: 0 },
            description: "rejected: the channel's dead letters by its reason",
          },
        },
        ['stage', 'of', 'count'],
      ),
    },
    variants: {
      type: 'array',
      description: 'an A/B task: its counts per variant (docs/rollouts.md, "Reports"); absent otherwise',
      items: object(
        {
          name: { type: 'string' },
          share: { type: 'number' },
          recipients: integer('kept recipients given this variant'),
          deliveredOnline: nullable('integer', 'of them, pushed online; null where no delivery records are kept'),
          queuedOffline: nullable('integer', 'of them, queued offline; null where no delivery records are kept'),
        },
        ['name', 'share', 'recipients', 'deliveredOnline', 'queuedOffline'],
      ),
    },
  },
  ['taskId', 'state', 'at', 'stages'],
  "a task's funnel",
);

const fateProperties = recipientFate.properties as Record<string, JsonSchema>;

/** GET /api/v1/recipients/:uin/history's answer: the user's broadcasts from an account, newest first. */
export const recipientHistory = object(
  {
    uin: integer('the recipient'),
    accountId: { type: 'string' },
    from: { type: 'string', format: 'date-time', description: 'the window read: tasks created at or after this' },
    to: { type: 'string', format: 'date-time', description: 'and before this' },
    entries: {
      type: 'array',
      items: object(
        {
          ...fateProperties,
          title: nullable('string', "the task's content title; null: it has none"),
          createdAt: epochMs('when the task was created'),
          state: { type: 'string', enum: [...TASK_STATES], description: "the task's state now" },
        },
        ['taskId', 'uin', 'fate', 'title', 'createdAt', 'state'],
        'one task of the account in which the recipient was (or may have been) in the audience, with its fate there',
      ),
    },
    scanned: integer(
      `tasks this page read, at most ${HISTORY_SCAN_BUDGET}; a page may hold fewer entries than asked and still go on`,
    ),
    nextCursor: nullable('string', 'pass as `cursor` to read on (`<uin>-<taskId>`); null: no task left in the window'),
  },
  ['uin', 'accountId', 'from', 'to', 'entries', 'scanned', 'nextCursor'],
  "a recipient's broadcasts from one account, newest first",
);
