/**
 * The delivery records' own route (routes/task-records.ts;
 * docs/recipient-truth.md, "Purging a task's records"), joined into the
 * route table by operations.ts.
 */
import { TERMINAL_TASK_STATES } from '@herald/core/task';
import { json, task404, TASK_ID, type OperationDoc } from './operation-parts';
import { integer, object } from './schema-builders';

const PURGED = object(
  {
    taskId: integer('the task'),
    batches: integer('batch records removed (0: none were left)', { minimum: 0 }),
    logins: integer('login outcomes removed (0: none were left)', { minimum: 0 }),
  },
  ['taskId', 'batches', 'logins'],
);

export const RECORD_OPERATIONS: Record<string, OperationDoc> = {
  'DELETE /api/v1/tasks/:id/records': {
    tag: 'tasks',
    access: 'token',
    summary: "Purge a finished task's delivery records",
    description: `Removes the task's per-recipient delivery records (batch records, login outcomes and their counts) on every executor that keeps them, and says how many it removed; asked again it removes nothing and answers zeros. Only a task that is over (${TERMINAL_TASK_STATES.join(', ')}). The task itself is not changed: its state, report and progress stay as they were. Afterwards GET /api/v1/tasks/:id/recipients/:uin answers a position its unit confirmed as \`unknown\` ("confirmed ... without a delivery record"), and the report and funnel say the same. Same access as cancelling the task: another account's task answers 404. docs/recipient-truth.md, "Purging a task's records".`,
    responses: { 200: json('what was removed', PURGED) },
    errors: {
      400: 'VALIDATION_FAILED: the id is not a positive integer (details.field id)',
      404: `${task404}; NOT_FOUND: this interface process keeps no delivery records`,
      409: 'TASK_NOT_OVER: the task is still running (details.state names its state) and would write its records again; purge it once it is over',
      503: 'UNAVAILABLE: executors did not answer (details.hosts); their records are not purged, and details.purged says what the others removed (null when not counted); purge again once they answer. Or a store is unreachable; retry later',
    },
    params: { id: TASK_ID },
  },
};
