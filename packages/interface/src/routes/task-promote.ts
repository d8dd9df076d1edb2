import { IllegalTransitionError } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { visibleTask } from './visible-task';

/**
 * POST /api/v1/tasks/:id/promote (docs/rollouts.md, "Canary"): the operator
 * sends a canary's rest now. A canary still sampling is marked `promoted` in
 * its report, where its scheduler's next tick finds it and runs the rest; a
 * canary that paused itself is marked `promoted` and resumed. Anything else
 * is 409 ILLEGAL_TRANSITION. Aborting a canary is the existing cancel.
 */
export function taskPromoteRoutes(app: FastifyInstance, deps: ApiDeps): void {
  app.post<{ Params: { id: string } }>('/api/v1/tasks/:id/promote', async (request, reply) => {
    const task = await visibleTask(request, deps.store, request.params.id);
    const id = task.id;
    const canary = task.report.canary;
    const sampling = task.state === 'SENDING' && canary?.state === 'sampling';
    const pausedByIt = task.state === 'PAUSED' && canary?.state === 'failed';
    if (canary === undefined || !(sampling || pausedByIt))
      throw new IllegalTransitionError('task', task.state, 'promote');
    const promoted = { ...canary, state: 'promoted' as const };
    // Fenced by the owner's epoch: a write that lost a race with a change of owner is refused, never misapplied.
    await deps.store.updateTask(id, { epoch: task.epoch }, { report: { canary: promoted } }, deps.clock.now());
    if (pausedByIt) await deps.toScheduler.send({ kind: 'task.command', taskId: id, command: 'resume' });
    return reply.code(202).send({ taskId: id, command: 'promote', accepted: true });
  });
}
