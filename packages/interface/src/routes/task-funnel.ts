import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { taskFunnel } from '../task-funnel';
import { variantCounts } from '../variant-counts';
import { visibleTask } from './visible-task';

/**
 * GET /api/v1/tasks/:id/funnel: the task's audience narrowed by each filter
 * link, then how its kept recipients stand (docs/recipient-truth.md, "The
 * funnel"). Found as GET /api/v1/tasks/:id finds it: another account's task
 * is TASK_NOT_FOUND. A task not filtered yet answers what it can. An A/B
 * task adds `variants`: its counts per variant.
 */
export function taskFunnelRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get<{ Params: { id: string } }>('/api/v1/tasks/:id/funnel', async (request) => {
    const task = await visibleTask(request, deps.store, request.params.id);
    const funnel = await taskFunnel(task, deps);
    // An A/B task also answers per variant (docs/rollouts.md, "Reports").
    const variants = await variantCounts(task, { ...deps, uinLimit: deps.config.uinLimit });
    return variants === undefined ? funnel : { ...funnel, variants };
  });
}
