/*
 * A safe rollout's shapes (docs/rollouts.md): a canary task's report, and
 * POST /api/v1/tasks/:id/engagement's answer ("Click-through"): the running
 * totals of clicks and opens an app backend reported for a task, which a
 * canary's `minClickThrough` is judged by.
 */
import { CANARY_STATES } from '@herald/core/task';
import { object } from './schema-builders';

/** The totals as stored: they only grow, so a retried report never counts twice. */
export const engagement = object(
  {
    clicks: { type: 'integer', minimum: 0 },
    opens: { type: 'integer', minimum: 0 },
    reportedAt: { type: 'integer', description: 'epoch ms: when a report last raised a count' },
  },
  ['clicks', 'reportedAt'],
  'running totals an app backend reported (docs/rollouts.md, "Click-through")',
);

export const taskEngagementAnswer = object(
  { taskId: { type: 'integer' }, engagement },
  ['taskId', 'engagement'],
  'POST /api/v1/tasks/:id/engagement',
);

/** A canary task's sample and where it stands, in its report. */
export const canaryReport = object(
  {
    sample: {
      type: 'integer',
      minimum: 0,
      description: 'positions [0, sample) of the filtered list are the sample',
    },
    state: { type: 'string', enum: [...CANARY_STATES] },
    holdUntil: { type: 'integer', description: 'epoch ms: when the hold ends and the sample is judged' },
    rejectedRatio: { type: 'number', description: 'dead letters over the sample, once judged' },
    failedRatio: {
      type: 'number',
      description: 'sample recipients not confirmed when the hold ended, once judged',
    },
    clickThrough: {
      type: 'number',
      description:
        "reported clicks over the sample's recipients delivered online, once judged with engagement reported; absent: not judged on clicks",
    },
  },
  ['sample', 'state', 'holdUntil'],
  'a canary task (docs/rollouts.md): its sample and where it stands; absent: no canary',
);
