import { parseEngagement } from '@herald/core/rollout';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { auditedTaskId, visibleTask } from './visible-task';

const engagementBody = {
  type: 'object',
  required: ['clicks'],
  additionalProperties: false,
  properties: {
    clicks: { type: 'integer', minimum: 0, description: "clicks on the task's message so far, a running total" },
    opens: { type: 'integer', minimum: 0, description: 'opens so far, a running total (kept, not judged)' },
  },
} as const;

/**
 * POST /api/v1/tasks/:id/engagement (docs/rollouts.md, "Click-through"): an
 * app backend reports the clicks (and opens) a task's message got so far, as
 * running totals, so a retry or a repeat never counts twice; the stored
 * totals only grow (core mergeEngagement, applied inside the store's
 * update). A canary with `minClickThrough` is judged on them after its
 * hold. Access as for the task: another account's task is TASK_NOT_FOUND.
 */
export function taskEngagementRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.post<{ Params: { id: string }; Body: unknown }>(
    '/api/v1/tasks/:id/engagement',
    { schema: { body: engagementBody } },
    async (request) => {
      // The report is judged before the task is read: a bad one is 400 (audited as the task) whether or not the task exists.
      const id = auditedTaskId(request, request.params.id);
      const reported = parseEngagement(request.body);
      const task = await visibleTask(request, deps.store, request.params.id);
      const now = deps.clock.now();
      // Fenced by the owner's epoch like a promote; the merge keeps the larger of each count.
      const next = await deps.store.updateTask(
        id,
        { epoch: task.epoch },
        { report: { engagement: { ...reported, reportedAt: now } } },
        now,
      );
      return { taskId: id, engagement: next.report.engagement };
    },
  );
}
