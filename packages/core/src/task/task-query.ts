/*
 * The argument checks of the TaskStore's reads: listings (TaskQuery), the
 * outbox, listTasksByContent. Pure: no I/O. Failures are ValidationError
 * (VALIDATION_FAILED).
 */
import { ValidationError } from '../errors';
import type { TaskQuery } from '../ports/task-store';
import { isU32 } from './record-rules';
import { TASK_STATES } from './task-machine';
import { compileTextSearch, type TextSearch } from './text-search';

export const TASK_QUERY_DEFAULT_LIMIT = 100;
export const TASK_QUERY_MAX_LIMIT = 1000;

/** A page or batch size: an integer in 1..TASK_QUERY_MAX_LIMIT. */
export function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > TASK_QUERY_MAX_LIMIT) {
    throw new ValidationError(`limit must be an integer in 1..${TASK_QUERY_MAX_LIMIT}`, { limit });
  }
}

function checkAfterId(afterId: number): void {
  if (!Number.isSafeInteger(afterId) || afterId < 0)
    throw new ValidationError('afterId must be a non-negative integer', { afterId });
}

/** readOutbox arguments: afterId a non-negative integer, limit 1..TASK_QUERY_MAX_LIMIT. */
export function checkOutboxRead(afterId: number, limit: number): void {
  checkAfterId(afterId);
  checkLimit(limit);
}

/** A TaskQuery with its defaults filled in, validated. */
export interface CompiledTaskQuery {
  state: TaskQuery['state'];
  accountId: string | undefined;
  /** Undefined: any account. */
  accountIds: readonly string[] | undefined;
  afterId: number;
  order: 'asc' | 'desc';
  /** Undefined: from the newest task (a descending listing's first page). */
  beforeId: number | undefined;
  createdFrom: number | undefined;
  createdBefore: number | undefined;
  /** Undefined: no text search. */
  search: TextSearch | undefined;
  limit: number;
}

/** The most account ids one TaskQuery may name (an operator token's accounts). */
export const TASK_QUERY_MAX_ACCOUNTS = 1000;

export function compileTaskQuery(query: TaskQuery): CompiledTaskQuery {
  const {
    state,
    accountId,
    accountIds,
    afterId = 0,
    order = 'asc',
    beforeId,
    createdFrom,
    createdBefore,
    q,
    limit = TASK_QUERY_DEFAULT_LIMIT,
  } = query;
  checkLimit(limit);
  checkAfterId(afterId);
  if (order !== 'asc' && order !== 'desc')
    throw new ValidationError("order must be 'asc' or 'desc'", { field: 'order', order });
  if (beforeId !== undefined) {
    if (!Number.isSafeInteger(beforeId) || beforeId < 1)
      throw new ValidationError('beforeId must be a positive integer', { field: 'beforeId', beforeId });
    if (order !== 'desc') throw new ValidationError("beforeId pages a listing in order 'desc'", { field: 'beforeId' });
  }
  if (afterId !== 0 && order === 'desc')
    throw new ValidationError("afterId pages a listing in order 'asc'; use beforeId", { field: 'afterId' });
  for (const [field, value] of [
    ['createdFrom', createdFrom],
    ['createdBefore', createdBefore],
  ] as const) {
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0))
      throw new ValidationError(`${field} must be epoch milliseconds`, { field, [field]: value });
  }
  if (state !== undefined && !TASK_STATES.includes(state)) throw new ValidationError('unknown task state', { state });
  if (accountId !== undefined && typeof accountId !== 'string')
    throw new ValidationError('accountId must be a string', { accountId });
  if (
    accountIds !== undefined &&
    (!Array.isArray(accountIds) ||
      accountIds.length > TASK_QUERY_MAX_ACCOUNTS ||
      accountIds.some((id) => typeof id !== 'string'))
  ) {
    throw new ValidationError(`accountIds must be a list of at most ${TASK_QUERY_MAX_ACCOUNTS} account ids`, {
      field: 'accountIds',
    });
  }
  const search = compileTextSearch(q);
  return {
    state,
    accountId,
    accountIds: accountIds === undefined ? undefined : [...new Set(accountIds)],
    afterId,
    order,
    beforeId,
    createdFrom,
    createdBefore,
    search,
    limit,
  };
}

/** listTasksByContent arguments: accountId a string, contentCrc a u32. */
export function checkContentQuery(accountId: string, contentCrc: number): void {
  if (typeof accountId !== 'string') throw new ValidationError('accountId must be a string');
  if (!isU32(contentCrc)) throw new ValidationError('contentCrc must be a u32', { contentCrc });
}
