import { NotFoundError } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertCanSeeAccount, noteAudit } from '../access/request-access';
import { taskFunnel } from '../task-funnel';
import { variantCounts } from '../variant-counts';
import { parseTaskId } from './tasks';

/**
 * GET /api/v1/tasks/:id/funnel: the task's audience narrowed by each filter
 * link, then how its kept recipients stand (docs/recipient-truth.md, "The
 * funnel"). Found as GET /api/v1/tasks/:id finds it: another account's task
 * is TASK_NOT_FOUND. A task not filtered yet answers what it can. An A/B
 * task adds `variants`: its counts per variant.
 */
export function taskFunnelRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.get<{ Params: { id: string } }>('/api/v1/tasks/:id/funnel', async (request) => {
    const id = parseTaskId(request.params.id);
    noteAudit(request, { resource: `task:${id}` });
    const missing = () =>
      new NotFoundError('TASK_NOT_FOUND', `task ${request.params.id} does not exist`, { taskId: id });
    const task = await deps.store.getTask(id);
    if (task === undefined) throw missing();
    assertCanSeeAccount(request, task.accountId, missing);
    const funnel = await taskFunnel(task, deps);
    // An A/B task also answers per variant (docs/rollouts.md, "Reports").
    const variants = await variantCounts(task, { ...deps, uinLimit: deps.config.uinLimit });
    return variants === undefined ? funnel : { ...funnel, variants };
  });
}
