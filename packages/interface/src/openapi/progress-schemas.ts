/*
 * GET /api/v1/tasks/:id/progress's answer (docs/api.md, GET /api/v1/tasks/:id/progress): the
 * curve its owning scheduler recorded, the current rate, an ETA and, for a
 * queued task, why it waits.
 */
import { TASK_STATES } from '@herald/core/task';
import { epochMs, integer, nullable, object, type JsonSchema } from './schema-builders';

const sample = object(
  {
    at: epochMs('when'),
    confirmed: integer('delivered + offline over the whole task by then', { minimum: 0 }),
  },
  ['at', 'confirmed'],
);

const waiting: JsonSchema = {
  ...object(
    {
      reason: { type: 'string', enum: ['sender_slots'], description: 'every sender slot of its scheduler is taken' },
      slots: integer("the scheduler's sender slots (scheduler.slots)"),
      inUse: integer('slots taken'),
      heldBy: {
        type: 'array',
        items: { type: 'integer' },
        maxItems: 8,
        description: 'tasks holding them (the first 8)',
      },
      ahead: integer('tasks ahead of it in the ready queue'),
      since: epochMs('waiting so since'),
      message: {
        type: 'string',
        description: 'the reason in words, e.g. "waiting for a sender slot: 4 of 4 in use by tasks 12, 15, …"',
      },
    },
    ['reason', 'slots', 'inUse', 'heldBy', 'ahead', 'since', 'message'],
  ),
  type: ['object', 'null'],
  description: 'why a QUEUED or PREEMPTED task waits; null otherwise',
};

export const taskProgress = object(
  {
    taskId: integer('task id', { minimum: 1 }),
    state: { type: 'string', enum: [...TASK_STATES] },
    total: nullable(
      'integer',
      "recipients left after the filter chain, less a local-time task's skipped groups; null before pre-processing",
    ),
    confirmed: integer('delivered + offline so far'),
    recorded: {
      type: 'boolean',
      description:
        'false: no curve was kept for this task (it has not sent yet, or it is from before curves were kept); `samples` is then empty',
    },
    intervalMs: integer(
      "the spacing of the curve's points now: 1000 while young, doubled each time it outgrows 512 points",
    ),
    samples: { type: 'array', items: sample, maxItems: 513, description: 'the curve, oldest first' },
    ratePerSecond: integer("recipients confirmed a second over the curve's last 10 s while SENDING; else 0"),
    etaAt: nullable(
      'integer',
      'when the task should be done at that rate (epoch ms), while SENDING; null otherwise or without a rate',
    ),
    waiting,
    quietHold: object(
      {
        until: integer('the earliest end of the quiet hours the held groups wait for (epoch ms)'),
        recipients: integer('recipients of the held groups not sent yet'),
        message: { type: 'string', description: 'e.g. "held for quiet hours until 07:00 UTC for 3400 recipients"' },
      },
      ['until', 'recipients', 'message'],
      "while a sending task's groups are held for their recipients' quiet hours (docs/local-time.md, during 'hold'); absent otherwise",
    ),
    localGroups: {
      type: 'array',
      description:
        "a local-time task's groups in release order (docs/local-time.md); absent for a task of one instant or before pre-processing",
      items: object(
        {
          releaseAt: integer("when the group is released: its recipients' local time (epoch ms)"),
          offsetMinutes: { type: 'integer', description: 'the UTC offset of its zones then, minutes east' },
          recipients: integer('its size'),
          skipped: {
            type: 'boolean',
            description: 'never sent: its zones missed the local time, or it comes after expiry',
          },
          released: { type: 'boolean', description: 'its units have been handed out' },
          confirmed: integer('delivered + offline so far'),
          heldUntil: integer(
            "while its sending is held for its recipients' quiet hours (during 'hold'): when they end (epoch ms)",
          ),
        },
        ['releaseAt', 'offsetMinutes', 'recipients', 'skipped', 'released', 'confirmed'],
      ),
    },
  },
  ['taskId', 'state', 'total', 'confirmed', 'recorded', 'intervalMs', 'samples', 'ratePerSecond', 'etaAt', 'waiting'],
  "a task's progress over time",
);
