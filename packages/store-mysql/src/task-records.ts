import {
  emptyReport,
  FILTER_REASONS,
  TASK_STATES,
  ValidationError,
  type ExecutionUnit,
  type Fence,
  type FilterReason,
  type ListMeta,
  type NewTask,
  type NewUnit,
  type Task,
  type TaskPatch,
  type TaskQuery,
  type TaskReport,
  type UnitProgress,
} from '@herald/core';

/**
 * Pure helpers of the MySQL task store: input validation, building records,
 * applying patches. No I/O here, so every rule is visible in one place.
 *
 * The rules are the Level store's (packages/store-level/src/task-records.ts,
 * which another package may not import), plus what the schema needs: times
 * are BIGINT epoch ms, so they must be safe integers, and ids, owners and
 * account ids are VARCHAR(255), so at most 255 characters.
 */

const isU32 = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0xffffffff;
const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
const isTime = (n: unknown): n is number => Number.isSafeInteger(n);

/** The longest id, account id, owner or executor id a VARCHAR(255) column holds. */
export const MAX_ID_CHARS = 255;

/** Fails VALIDATION_FAILED unless `value` is a string of at most MAX_ID_CHARS characters (code points). */
export function checkIdString(field: string, value: unknown, nonEmpty = false): string {
  if (typeof value !== 'string' || (nonEmpty && value === '')) throw new ValidationError(`${field} must be a${nonEmpty ? ' non-empty' : ''} string`, { field });
  if (value.length > MAX_ID_CHARS && [...value].length > MAX_ID_CHARS) {
    throw new ValidationError(`${field} is longer than ${MAX_ID_CHARS} characters`, { field, length: [...value].length });
  }
  return value;
}

/** A value that can be a stored task id: a positive safe integer. */
export function isTaskId(id: unknown): id is number {
  return Number.isSafeInteger(id) && (id as number) > 0;
}

export function checkNow(now: number): void {
  if (!isTime(now)) throw new ValidationError('now must be an integer number of epoch ms', { now });
}

export function checkNewTask(input: NewTask): void {
  const fail = (field: string, value: unknown) => {
    throw new ValidationError(`task ${field} is invalid`, { field, value });
  };
  if (typeof input?.accountId !== 'string' || input.accountId === '') fail('accountId', input?.accountId);
  if (typeof input.listId !== 'string') fail('listId', input.listId);
  checkIdString('accountId', input.accountId, true);
  checkIdString('listId', input.listId);
  if (typeof input.content?.body !== 'string') fail('content.body', input.content?.body);
  if (input.content.title !== undefined && typeof input.content.title !== 'string') fail('content.title', input.content.title);
  if (!isU32(input.contentCrc)) fail('contentCrc', input.contentCrc);
  if (input.priority !== 'realtime' && input.priority !== 'normal') fail('priority', input.priority);
  if (!isTime(input.sendAt)) fail('sendAt', input.sendAt);
  if (!isTime(input.expiresAt)) fail('expiresAt', input.expiresAt);
  if (!isCount(input.listCount)) fail('listCount', input.listCount);
}

export function newTaskRecord(id: number, input: NewTask, now: number): Task {
  const content = input.content.title === undefined ? { body: input.content.body } : { body: input.content.body, title: input.content.title };
  return {
    id,
    accountId: input.accountId,
    listId: input.listId,
    content,
    contentCrc: input.contentCrc,
    priority: input.priority,
    sendAt: input.sendAt,
    expiresAt: input.expiresAt,
    listCount: input.listCount,
    state: 'CREATED',
    version: 1,
    epoch: 0,
    owner: null,
    filteredListId: null,
    report: emptyReport(input.listCount),
    error: null,
    createdAt: now,
    updatedAt: now,
  };
}

export interface CompiledQuery {
  state: TaskQuery['state'];
  accountId: string | undefined;
  afterId: number;
  limit: number;
}

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;

export function compileQuery(query: TaskQuery): CompiledQuery {
  const { state, accountId, afterId = 0, limit = DEFAULT_LIMIT } = query;
  checkLimit(limit);
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw new ValidationError('afterId must be a non-negative integer', { afterId });
  if (state !== undefined && !TASK_STATES.includes(state)) throw new ValidationError('unknown task state', { state });
  if (accountId !== undefined && typeof accountId !== 'string') throw new ValidationError('accountId must be a string', { accountId });
  return { state, accountId, afterId, limit };
}

const REPORT_COUNTS = ['total', 'kept', 'delivered', 'offline', 'units', 'unitsDone'] as const;

function checkPatch(patch: TaskPatch): void {
  if (patch === null || typeof patch !== 'object') throw new ValidationError('patch must be an object');
  if (patch.filteredListId !== undefined && patch.filteredListId !== null && typeof patch.filteredListId !== 'string') {
    throw new ValidationError('filteredListId must be a string or null', { filteredListId: patch.filteredListId });
  }
  if (typeof patch.filteredListId === 'string') checkIdString('filteredListId', patch.filteredListId);
  if (patch.error !== undefined && patch.error !== null && (typeof patch.error.code !== 'string' || typeof patch.error.message !== 'string')) {
    throw new ValidationError('error must be { code, message } strings or null');
  }
  const report = patch.report;
  if (report === undefined) return;
  for (const field of REPORT_COUNTS) {
    const n = report[field];
    if (n !== undefined && !isCount(n)) throw new ValidationError(`report.${field} must be a non-negative integer`, { field, value: n });
  }
  for (const [reason, n] of Object.entries(report.removed ?? {})) {
    if (!(FILTER_REASONS as readonly string[]).includes(reason)) throw new ValidationError('unknown filter reason', { reason });
    if (n !== undefined && !isCount(n)) throw new ValidationError(`report.removed.${reason} must be a non-negative integer`, { reason, value: n });
  }
}

/**
 * The task after `patch`: given fields replace stored ones; `report` merges
 * field by field and `report.removed` merges reason by reason (a reason given
 * replaces its count, reasons not given keep theirs). Validates first.
 */
export function applyPatch(task: Task, patch: TaskPatch): Task {
  checkPatch(patch);
  const next: Task = { ...task };
  if (patch.filteredListId !== undefined) next.filteredListId = patch.filteredListId;
  if (patch.error !== undefined) next.error = patch.error === null ? null : { code: patch.error.code, message: patch.error.message };
  if (patch.report !== undefined) {
    const report: TaskReport = { ...task.report, removed: { ...task.report.removed } };
    for (const field of REPORT_COUNTS) {
      const n = patch.report[field];
      if (n !== undefined) report[field] = n;
    }
    for (const [reason, n] of Object.entries(patch.report.removed ?? {})) {
      if (n !== undefined) report.removed[reason as FilterReason] = n;
    }
    next.report = report;
  }
  return next;
}

/** Validates a putUnits request: integer unitNo unique, 0 <= start <= end, executorId a string. */
export function checkNewUnits(units: readonly NewUnit[]): void {
  if (!Array.isArray(units)) throw new ValidationError('units must be an array');
  const seen = new Set<number>();
  for (const u of units) {
    if (!isU32(u.unitNo)) throw new ValidationError('unitNo must be a non-negative integer', { unitNo: u.unitNo });
    if (seen.has(u.unitNo)) throw new ValidationError('duplicate unitNo', { unitNo: u.unitNo });
    seen.add(u.unitNo);
    if (!isCount(u.start) || !isCount(u.end) || u.start > u.end) {
      throw new ValidationError('unit range must satisfy 0 <= start <= end', { unitNo: u.unitNo, start: u.start, end: u.end });
    }
    if (typeof u.executorId !== 'string') throw new ValidationError('executorId must be a string', { unitNo: u.unitNo });
    checkIdString('executorId', u.executorId);
  }
}

export function newUnitRecord(taskId: number, u: NewUnit, now: number): ExecutionUnit {
  return {
    taskId,
    unitNo: u.unitNo,
    start: u.start,
    end: u.end,
    executorId: u.executorId,
    state: 'PENDING',
    checkpoint: u.start,
    delivered: 0,
    offline: 0,
    updatedAt: now,
  };
}

/** Shape checks that need no stored unit. */
export function checkProgress(progress: UnitProgress): void {
  const { from, to, delivered, offline } = progress;
  if (!isCount(from) || !isCount(to)) throw new ValidationError('progress from/to must be non-negative integers', { from, to });
  if (!isCount(delivered) || !isCount(offline)) throw new ValidationError('progress counts must be non-negative integers', { delivered, offline });
  if (to <= from) throw new ValidationError('progress must move forward: to > from', { from, to });
}

/** Range checks against the stored unit: start <= from < to <= end. */
export function checkProgressInUnit(unit: ExecutionUnit, progress: UnitProgress): void {
  if (progress.from < unit.start || progress.to > unit.end) {
    throw new ValidationError('progress outside the unit range', { unitNo: unit.unitNo, start: unit.start, end: unit.end, from: progress.from, to: progress.to });
  }
}

export function checkListMeta(meta: ListMeta): void {
  if (typeof meta?.id !== 'string' || meta.id === '') throw new ValidationError('list id must be a non-empty string', { id: meta?.id });
  checkIdString('list id', meta.id, true);
  checkIdString('list accountId', meta.accountId);
  if (!isCount(meta.count) || !isCount(meta.bytes)) throw new ValidationError('list count and bytes must be non-negative integers', { count: meta.count, bytes: meta.bytes });
  if (!isU32(meta.checksum)) throw new ValidationError('list checksum must be a u32', { checksum: meta.checksum });
  if (typeof meta.sorted !== 'boolean' || typeof meta.unique !== 'boolean') throw new ValidationError('list sorted and unique must be booleans');
  if (!isTime(meta.createdAt)) throw new ValidationError('list createdAt must be an integer number of epoch ms', { createdAt: meta.createdAt });
}

/** readOutbox arguments: afterId a non-negative integer, limit 1..MAX_LIMIT. */
export function checkOutboxRead(afterId: number, limit: number): void {
  if (!Number.isSafeInteger(afterId) || afterId < 0) throw new ValidationError('afterId must be a non-negative integer', { afterId });
  checkLimit(limit);
}

export function checkLimit(limit: number): void {
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new ValidationError(`limit must be an integer in 1..${MAX_LIMIT}`, { limit });
}

export function checkedFence(fence: Fence): Fence {
  if (!Number.isSafeInteger(fence?.epoch) || fence.epoch < 0) throw new ValidationError('fence.epoch must be a non-negative integer', { fence });
  return fence;
}

export function checkUnitNo(unitNo: number): void {
  if (!isU32(unitNo)) throw new ValidationError('unitNo must be a u32', { unitNo });
}
