import { NotFoundError, ValidationError } from '@herald/core';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertCanSeeAccount, noteAudit } from '../access/request-access';
import { recipientFate } from '../recipient-fate';
import { parseTaskId } from './tasks';

/**
 * GET /api/v1/tasks/:id/recipients/:uin: what happened to one recipient in
 * one task (docs/recipient-truth.md). The task is found as GET
 * /api/v1/tasks/:id finds it: a task of an account the caller may not see is
 * TASK_NOT_FOUND, as a missing one.
 */
export function recipientRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { store, config } = deps;
  app.get<{ Params: { id: string; uin: string } }>('/api/v1/tasks/:id/recipients/:uin', async (request) => {
    const { id: rawId, uin: rawUin } = request.params;
    const id = parseTaskId(rawId);
    noteAudit(request, { resource: `task:${id}` });
    const missing = () => new NotFoundError('TASK_NOT_FOUND', `task ${rawId} does not exist`, { taskId: id });
    const task = await store.getTask(id);
    if (task === undefined) throw missing();
    assertCanSeeAccount(request, task.accountId, missing);
    const uin = parseUin(rawUin, config.uinLimit);
    return { taskId: task.id, ...(await recipientFate(task, uin, deps)) };
  });
}

/** A uin inside the uin space: a decimal integer below uinLimit. */
export function parseUin(raw: string, uinLimit: number): number {
  const uin = Number(raw);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(raw) || !Number.isSafeInteger(uin) || uin >= uinLimit)
    throw new ValidationError(`uin '${raw.slice(0, 40)}' is not an integer in [0, ${uinLimit})`, { field: 'uin' });
  return uin;
}
