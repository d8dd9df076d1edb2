/**
 * How every route under /api/v1/tasks/:id finds its task. Kept apart from
 * routes/tasks.ts so that the other task routes need not import the task
 * routes themselves.
 */
import { NotFoundError, ValidationError } from '@herald/core';
import type { TaskStore } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import type { FastifyRequest } from 'fastify';
import { assertCanSeeAccount, noteAudit } from '../access/request-access';

/** A task id from the path: a positive decimal integer without leading zeros, else 400 naming `id`. */
export function parseTaskId(raw: string): number {
  const id = Number(raw);
  if (!/^[1-9][0-9]{0,15}$/.test(raw) || !Number.isSafeInteger(id))
    throw new ValidationError(`task id '${raw}' is not a positive integer`, { field: 'id' });
  return id;
}

/**
 * The path's task id, noted as the request's resource for the audit log. A
 * route that judges its input before reading the task calls this first, so
 * that a refusal is still audited as `task:<id>` (visibleTask then notes the
 * same id again, which changes nothing).
 */
export function auditedTaskId(request: FastifyRequest, raw: string): number {
  const id = parseTaskId(raw);
  noteAudit(request, { resource: `task:${id}` });
  return id;
}

/**
 * The task `raw` names, if it exists and the caller may see its account; else
 * TASK_NOT_FOUND either way, so an operator cannot tell another account's
 * task from a missing one. A malformed id is 400 naming `id`, before the
 * store is read.
 */
export async function visibleTask(
  request: FastifyRequest,
  store: Pick<TaskStore, 'getTask'>,
  raw: string,
): Promise<Task> {
  const id = auditedTaskId(request, raw);
  const missing = () => new NotFoundError('TASK_NOT_FOUND', `task ${raw} does not exist`, { taskId: id });
  const task = await store.getTask(id);
  if (task === undefined) throw missing();
  assertCanSeeAccount(request, task.accountId, missing);
  return task;
}
