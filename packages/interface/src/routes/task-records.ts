import { ErrorCodes, HeraldError, NotFoundError } from '@herald/core';
import { isHostsUnreachable, purgedBeforeUnreachable, unreachableReason } from '@herald/core/fate';
import { TERMINAL_TASK_STATES, type Task } from '@herald/core/task';
import type { PurgedRecords } from '@herald/core/ports';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { visibleTask } from './visible-task';

/** What DELETE /api/v1/tasks/:id/records answers: the task and how many of its records were removed. */
export interface PurgeAnswer extends PurgedRecords {
  taskId: number;
}

/**
 * DELETE /api/v1/tasks/:id/records: removes a finished task's delivery
 * records (docs/recipient-truth.md, "Purging a task's records"), on the
 * embedded profile from its one log, on the production profile from every
 * executor. Found and refused as the task's other mutating routes (cancel,
 * pause) are: another account's task is TASK_NOT_FOUND, as a missing one.
 * Only a task that is over: one still running would write records again
 * (409 TASK_NOT_OVER, naming its state). Idempotent: records already gone
 * answer zeros. The task itself (state, report, progress) is not touched.
 */
export function taskRecordRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { store } = deps;
  app.delete<{ Params: { id: string } }>('/api/v1/tasks/:id/records', async (request): Promise<PurgeAnswer> => {
    const task = await visibleTask(request, store, request.params.id);
    const id = task.id;
    assertOver(task);
    const records = deps.deliveryRecords;
    // Not a missing task (its code differs): this process was started without the records to purge.
    if (records === undefined)
      throw new NotFoundError('NOT_FOUND', 'this interface process keeps no delivery records to purge', {
        taskId: id,
      });
    const purged = await records.purgeTask(id).catch((error: unknown) => {
      throw isHostsUnreachable(error) ? purgeIncomplete(id, error.hosts, purgedBeforeUnreachable(error)) : error;
    });
    return { taskId: id, batches: purged.batches, logins: purged.logins };
  });
}

/** TASK_NOT_OVER unless the task is in a terminal state: a task still sending or settling would write its records again. */
export function assertOver(task: Pick<Task, 'id' | 'state'>): void {
  if (TERMINAL_TASK_STATES.includes(task.state)) return;
  throw new HeraldError(
    ErrorCodes.TASK_NOT_OVER,
    `task ${task.id} is ${task.state}: only a task that is over (${TERMINAL_TASK_STATES.join(', ')}) has its delivery records purged, else it would write them again`,
    { details: { field: 'id', taskId: task.id, state: task.state } },
  );
}

/**
 * 503 UNAVAILABLE (retriable) for a purge some executors did not answer: it
 * names them, says what the others removed (when the log could count it),
 * and that asking again finishes the job (a purge is idempotent).
 */
function purgeIncomplete(taskId: number, hosts: readonly string[], purged: PurgedRecords | undefined): HeraldError {
  const removed =
    purged === undefined
      ? 'what the others removed was not counted'
      : `the others removed ${purged.batches} batch records and ${purged.logins} login outcomes`;
  return new HeraldError(
    ErrorCodes.UNAVAILABLE,
    `task ${taskId}: ${unreachableReason(hosts)}: their records of the task are not purged; ${removed}; purge again once they answer`,
    { retriable: true, details: { taskId, hosts, purged: purged ?? null } },
  );
}
