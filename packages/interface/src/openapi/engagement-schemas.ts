/*
 * POST /api/v1/tasks/:id/engagement's answer (docs/rollouts.md, "Click-through"):
 * the running totals of clicks and opens an app backend reported for a task,
 * which a canary's `minClickThrough` is judged by.
 */
import { object } from './schema-builders';

/** The totals as stored: they only grow, so a retried report never counts twice. */
const engagement = object(
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
