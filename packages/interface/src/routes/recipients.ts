import { NotFoundError, ValidationError } from '@herald/core';
import { parseOptionalDateTime } from '@herald/core/time';
import { ACCOUNT_ID_PATTERN } from '@herald/core/access';
import type { FastifyInstance } from 'fastify';
import type { ApiDeps } from '../api-deps';
import { assertCanSeeAccount } from '../access/request-access';
import { CompletedTaskLookups } from '../completed-task-lookups';
import { recipientFate } from '../recipient-fate';
import {
  HISTORY_DEFAULT_DAYS,
  HISTORY_DEFAULT_LIMIT,
  HISTORY_MAX_LIMIT,
  historyCursor,
  parseHistoryCursor,
  recipientHistory,
} from '../recipient-history';
import { DATE_TIME_FIELD } from './date-field';
import { visibleTask } from './visible-task';

interface HistoryQueryString {
  accountId: string;
  from?: string;
  to?: string;
  cursor?: string;
  limit?: number;
}

const historyQuerySchema = {
  type: 'object',
  required: ['accountId'],
  additionalProperties: false,
  properties: {
    accountId: { type: 'string', pattern: ACCOUNT_ID_PATTERN.source },
    from: DATE_TIME_FIELD,
    to: DATE_TIME_FIELD,
    cursor: { type: 'string', maxLength: 40 },
    limit: { type: 'integer', minimum: 1, maximum: HISTORY_MAX_LIMIT },
  },
} as const;

const DAY_MS = 86_400_000;

/**
 * What happened to one recipient (docs/recipient-truth.md): in one task
 * (GET /api/v1/tasks/:id/recipients/:uin, the task found as GET
 * /api/v1/tasks/:id finds it: a task of an account the caller may not see is
 * TASK_NOT_FOUND, as a missing one), and across an account's recent
 * broadcasts (GET /api/v1/recipients/:uin/history: an account the caller may
 * not see is ACCOUNT_NOT_FOUND, as for every other account route).
 */
export function recipientRoutes(app: FastifyInstance, deps: ApiDeps): void {
  const { store, config, clock } = deps;
  // A completed task's units and open files, shared by its lookups (docs/recipient-truth.md, "What a lookup keeps").
  const completed = new CompletedTaskLookups();
  app.addHook('onClose', () => completed.close());
  const fateDeps = { ...deps, completed };
  app.get<{ Params: { id: string; uin: string } }>('/api/v1/tasks/:id/recipients/:uin', async (request) => {
    const task = await visibleTask(request, store, request.params.id);
    const uin = parseUin(request.params.uin, config.uinLimit);
    return { taskId: task.id, ...(await recipientFate(task, uin, fateDeps)) };
  });

  app.get<{ Params: { uin: string }; Querystring: HistoryQueryString }>(
    '/api/v1/recipients/:uin/history',
    { schema: { querystring: historyQuerySchema } },
    async (request) => {
      const { accountId, cursor, limit } = request.query;
      assertCanSeeAccount(
        request,
        accountId,
        () =>
          new NotFoundError('ACCOUNT_NOT_FOUND', `account ${accountId} not found`, { field: 'accountId', accountId }),
      );
      // The query before the path's uin: a bad date is named as such whatever the uin.
      const { from, to } = historyWindow(request.query.from, request.query.to, clock.now());
      const uin = parseUin(request.params.uin, config.uinLimit);
      const beforeId = parseHistoryCursor(cursor, uin);
      const page = await recipientHistory(
        { uin, accountId, from, to, beforeId, limit: limit ?? HISTORY_DEFAULT_LIMIT },
        deps,
      );
      return {
        uin,
        accountId,
        from: new Date(from).toISOString(),
        to: new Date(to).toISOString(),
        entries: page.entries,
        scanned: page.scanned,
        nextCursor: page.lastScannedId === undefined ? null : historyCursor(uin, page.lastScannedId),
      };
    },
  );
}

/** [from, to): `to` defaults to now, `from` to HISTORY_DEFAULT_DAYS before `to`; `from` after `to` is refused naming `from`. */
function historyWindow(rawFrom: string | undefined, rawTo: string | undefined, now: number) {
  const to = parseOptionalDateTime(rawTo, 'to') ?? now;
  const from = parseOptionalDateTime(rawFrom, 'from') ?? to - HISTORY_DEFAULT_DAYS * DAY_MS;
  if (from > to) throw new ValidationError(`from ${rawFrom ?? ''} is after to ${rawTo ?? '(now)'}`, { field: 'from' });
  return { from, to };
}

/** A uin inside the uin space: a decimal integer below uinLimit. */
export function parseUin(raw: string, uinLimit: number): number {
  const uin = Number(raw);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(raw) || !Number.isSafeInteger(uin) || uin >= uinLimit)
    throw new ValidationError(`uin '${raw.slice(0, 40)}' is not an integer in [0, ${uinLimit})`, { field: 'uin' });
  return uin;
}
