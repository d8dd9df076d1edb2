/*
 * GET /api/v1/tasks/:id/recipients/:uin's answer (docs/recipient-truth.md):
 * one recipient's fate in a task.
 */
import { FILTER_REASONS, TASK_STATES } from '@herald/core/task';
import { HISTORY_SCAN_BUDGET } from '../recipient-history';
import { epochMs, integer, nullable, object, type JsonSchema } from './schema-builders';

export const recipientFate = object(
  {
    taskId: integer('the task'),
    uin: integer('the recipient'),
    position: integer("its position in the task's filtered list, when it is there"),
    duplicateCopiesRemoved: integer('extra copies of it the dedupe link removed; its kept copy has the fate'),
    fate: {
      type: 'string',
      enum: ['not_in_audience', 'removed', 'delivered_online', 'queued_offline', 'not_reached', 'unknown'],
    },
    link: { type: 'string', enum: [...FILTER_REASONS], description: 'removed: the filter link that removed it' },
    at: epochMs('delivered_online, queued_offline: when its batch was confirmed'),
    executor: {
      type: 'string',
      description: 'delivered_online, queued_offline: the executor that confirmed its batch',
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
    reason: { type: 'string', description: 'unknown: what cannot be known, and why' },
  },
  ['taskId', 'uin', 'fate'],
  "one recipient's fate in one task",
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
