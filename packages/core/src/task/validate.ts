/*
 * The input checks and pure record logic of the TaskStore contract, shared by
 * every TaskStore adapter (Level, MySQL): validating NewTask, NewUnit,
 * ListMeta, queries, patches and unit progress; building new task and unit
 * records; merging patches and progress. Pure: no I/O. Failures are
 * ValidationError (VALIDATION_FAILED).
 *
 * What differs between adapters is a `TaskRecordRules` value: the embedded
 * store takes any finite time and unbounded ids (DEFAULT_TASK_RECORD_RULES);
 * a SQL store with BIGINT times and VARCHAR ids passes stricter rules.
 */
import { ErrorCodes, HeraldError, QueryError, ValidationError } from '../errors';
import { parseTargetingQuery } from '../targeting/query';
import type { TaskPatch, TaskQuery, UnitProgress } from '../ports/task-store';
import type { Fence } from './fence';
import { compileContent } from '../template/content';
import { taskContentOf } from './content';
import {
  emptyReport,
  FILTER_REASONS,
  type ExecutionUnit,
  type FilterReason,
  type ListMeta,
  type NewTask,
  type NewUnit,
  type Task,
  type TaskReport,
} from './model';
import { TASK_STATES } from './task-machine';
import { unitMachine, type UnitEvent } from './unit-machine';

/** What a store's columns accept, beyond the contract's own rules. */
export interface TaskRecordRules {
  /**
   * Epoch-ms times (`now`, sendAt, expiresAt, list createdAt): 'finite' takes
   * any finite number; 'integer' only safe integers (BIGINT columns).
   */
  readonly times: 'finite' | 'integer';
  /** The longest id, account id, owner or executor id a column holds, in code points; undefined: unbounded. */
  readonly maxIdChars?: number;
  /**
   * Whole-input shape checks: a missing NewTask or a non-object patch fails
   * VALIDATION_FAILED, and a ListMeta's count, bytes, checksum, sorted/unique
   * flags and createdAt are checked too.
   */
  readonly strictShapes: boolean;
}

/** The embedded store's rules: finite times, unbounded ids, the contract's shape checks only. */
export const DEFAULT_TASK_RECORD_RULES: TaskRecordRules = { times: 'finite', strictShapes: false };

/** The longest idempotency key a task may carry, in characters (every adapter, so both profiles agree). */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

export const TASK_QUERY_DEFAULT_LIMIT = 100;
export const TASK_QUERY_MAX_LIMIT = 1000;

const isU32 = (n: unknown): n is number => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 0xffffffff;
const isCount = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
const isTimeUnder =
  (rules: TaskRecordRules) =>
  (n: unknown): n is number =>
    rules.times === 'integer' ? Number.isSafeInteger(n) : typeof n === 'number' && Number.isFinite(n);

/** Fails VALIDATION_FAILED unless `value` is a string of at most `maxChars` characters (code points). */
export function checkIdString(field: string, value: unknown, nonEmpty = false, maxChars = Infinity): string {
  if (typeof value !== 'string' || (nonEmpty && value === ''))
    throw new ValidationError(`${field} must be a${nonEmpty ? ' non-empty' : ''} string`, { field });
  if (value.length > maxChars && [...value].length > maxChars) {
    throw new ValidationError(`${field} is longer than ${maxChars} characters`, { field, length: [...value].length });
  }
  return value;
}

/** checkIdString under `rules`, and only when the rules bound ids. */
function checkIdUnder(rules: TaskRecordRules, field: string, value: unknown, nonEmpty = false): void {
  if (rules.maxIdChars !== undefined) checkIdString(field, value, nonEmpty, rules.maxIdChars);
}

/** A value that can be a stored task id: a positive safe integer. */
export function isTaskId(id: unknown): id is number {
  return Number.isSafeInteger(id) && (id as number) > 0;
}

export function checkNow(now: number, rules: TaskRecordRules = DEFAULT_TASK_RECORD_RULES): void {
  if (!isTimeUnder(rules)(now)) {
    throw new ValidationError(
      `now must be ${rules.times === 'integer' ? 'an integer' : 'a finite'} number of epoch ms`,
      { now },
    );
  }
}

export function checkNewTask(input: NewTask, rules: TaskRecordRules = DEFAULT_TASK_RECORD_RULES): void {
  const isTime = isTimeUnder(rules);
  const fail = (field: string, value: unknown) => {
    throw new ValidationError(`task ${field} is invalid`, { field, value });
  };
  // Without strict shapes a missing input fails as it always has: a TypeError reading accountId.
  const accountId = rules.strictShapes ? input?.accountId : input.accountId;
  if (typeof accountId !== 'string' || accountId === '') fail('accountId', accountId);
  if (typeof input.listId !== 'string') fail('listId', input.listId);
  checkIdUnder(rules, 'accountId', input.accountId, true);
  checkIdUnder(rules, 'listId', input.listId);
  if (typeof input.content?.body !== 'string') fail('content.body', input.content?.body);
  if (input.content.title !== undefined && typeof input.content.title !== 'string')
    fail('content.title', input.content.title);
  if (input.content.template !== undefined && input.content.template !== true)
    fail('content.template', input.content.template);
  if (input.content.template === true) compileContent(input.content); // a malformed template throws TemplateError
  if (!isU32(input.contentCrc)) fail('contentCrc', input.contentCrc);
  if (input.priority !== 'realtime' && input.priority !== 'normal') fail('priority', input.priority);
  if (!isTime(input.sendAt)) fail('sendAt', input.sendAt);
  if (!isTime(input.expiresAt)) fail('expiresAt', input.expiresAt);
  if (!isCount(input.listCount)) fail('listCount', input.listCount);
  if (input.idempotencyKey !== undefined)
    checkIdString('idempotencyKey', input.idempotencyKey, true, MAX_IDEMPOTENCY_KEY_CHARS);
  if (input.displayAt !== undefined && !isTime(input.displayAt)) fail('displayAt', input.displayAt);
  if (input.speed !== undefined && !isTaskSpeed(input.speed)) fail('speed', input.speed);
  if (input.targeting !== undefined) checkTaskTargeting(input.targeting);
}

/**
 * A targeted task's query (NewTask.targeting; a campaign template's, under
 * `field` template.targeting) parses as an audience's does; a malformed one
 * is QUERY_INVALID with `details.field` beside the parser's position, found
 * and expected.
 */
export function checkTaskTargeting(query: unknown, field = 'targeting'): void {
  try {
    parseTargetingQuery(query);
  } catch (error) {
    if (!(error instanceof QueryError)) throw error;
    throw new HeraldError(ErrorCodes.QUERY_INVALID, `${field}: ${error.message}`, {
      cause: error,
      details: { field, ...error.details },
    });
  }
}

/** The most recipients per second a task may ask for (NewTask.speed; the account limit maxSpeed's ceiling too). */
export const MAX_TASK_SPEED = 100_000_000;

/** A speed a task may carry: an integer in 1..MAX_TASK_SPEED recipients per second. */
export function isTaskSpeed(speed: unknown): speed is number {
  return Number.isInteger(speed) && (speed as number) >= 1 && (speed as number) <= MAX_TASK_SPEED;
}

/** The record a validated NewTask is stored as: CREATED, version 1, epoch 0, an empty report. */
export function newTaskRecord(id: number, input: NewTask, now: number): Task {
  const content = taskContentOf(input.content);
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
    ...(input.idempotencyKey === undefined ? {} : { idempotencyKey: input.idempotencyKey }),
    ...(input.displayAt === undefined ? {} : { displayAt: input.displayAt }),
    speed: input.speed ?? null,
    targeting: input.targeting ?? null,
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
  return {
    state,
    accountId,
    accountIds: accountIds === undefined ? undefined : [...new Set(accountIds)],
    afterId,
    order,
    beforeId,
    createdFrom,
    createdBefore,
    limit,
  };
}

/** listTasksByContent arguments: accountId a string, contentCrc a u32. */
export function checkContentQuery(accountId: string, contentCrc: number): void {
  if (typeof accountId !== 'string') throw new ValidationError('accountId must be a string');
  if (!isU32(contentCrc)) throw new ValidationError('contentCrc must be a u32', { contentCrc });
}

/** A fence argument: epoch a non-negative integer. Returns the fence. */
export function checkedFence(fence: Fence): Fence {
  if (!Number.isSafeInteger(fence?.epoch) || fence.epoch < 0)
    throw new ValidationError('fence.epoch must be a non-negative integer', { fence });
  return fence;
}

export function checkUnitNo(unitNo: number): void {
  if (!isU32(unitNo)) throw new ValidationError('unitNo must be a u32', { unitNo });
}

const REPORT_COUNTS = ['total', 'kept', 'delivered', 'offline', 'units', 'unitsDone'] as const;

function checkPatch(patch: TaskPatch, rules: TaskRecordRules): void {
  if (rules.strictShapes && (patch === null || typeof patch !== 'object'))
    throw new ValidationError('patch must be an object');
  if (patch.filteredListId !== undefined && patch.filteredListId !== null && typeof patch.filteredListId !== 'string') {
    throw new ValidationError('filteredListId must be a string or null', { filteredListId: patch.filteredListId });
  }
  if (typeof patch.filteredListId === 'string') checkIdUnder(rules, 'filteredListId', patch.filteredListId);
  if (
    patch.error !== undefined &&
    patch.error !== null &&
    (typeof patch.error.code !== 'string' || typeof patch.error.message !== 'string')
  ) {
    throw new ValidationError('error must be { code, message } strings or null');
  }
  const report = patch.report;
  if (report === undefined) return;
  for (const field of REPORT_COUNTS) {
    const n = report[field];
    if (n !== undefined && !isCount(n))
      throw new ValidationError(`report.${field} must be a non-negative integer`, { field, value: n });
  }
  for (const [reason, n] of Object.entries(report.removed ?? {})) {
    if (!(FILTER_REASONS as readonly string[]).includes(reason))
      throw new ValidationError('unknown filter reason', { reason });
    if (n !== undefined && !isCount(n))
      throw new ValidationError(`report.removed.${reason} must be a non-negative integer`, { reason, value: n });
  }
}

/**
 * The task after `patch`: given fields replace stored ones; `report` merges
 * field by field and `report.removed` merges reason by reason (a reason given
 * replaces its count, reasons not given keep theirs). Validates first.
 */
export function applyTaskPatch(task: Task, patch: TaskPatch, rules: TaskRecordRules = DEFAULT_TASK_RECORD_RULES): Task {
  checkPatch(patch, rules);
  const next: Task = { ...task };
  if (patch.filteredListId !== undefined) next.filteredListId = patch.filteredListId;
  if (patch.error !== undefined)
    next.error = patch.error === null ? null : { code: patch.error.code, message: patch.error.message };
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
export function checkNewUnits(units: readonly NewUnit[], rules: TaskRecordRules = DEFAULT_TASK_RECORD_RULES): void {
  if (!Array.isArray(units as unknown)) throw new ValidationError('units must be an array');
  const seen = new Set<number>();
  for (const u of units) {
    if (!isU32(u.unitNo)) throw new ValidationError('unitNo must be a non-negative integer', { unitNo: u.unitNo });
    if (seen.has(u.unitNo)) throw new ValidationError('duplicate unitNo', { unitNo: u.unitNo });
    seen.add(u.unitNo);
    if (!isCount(u.start) || !isCount(u.end) || u.start > u.end) {
      throw new ValidationError('unit range must satisfy 0 <= start <= end', {
        unitNo: u.unitNo,
        start: u.start,
        end: u.end,
      });
    }
    if (typeof u.executorId !== 'string')
      throw new ValidationError('executorId must be a string', { unitNo: u.unitNo });
    checkIdUnder(rules, 'executorId', u.executorId);
  }
}

/** The record a validated NewUnit is stored as: PENDING, checkpoint at its start, no counts. */
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

/**
 * The unit after `event` (IllegalTransitionError if the unit machine refuses
 * it), handed to `executorId` when one is given.
 */
export function transitionedUnit(
  unit: ExecutionUnit,
  event: UnitEvent,
  now: number,
  executorId: string | undefined,
  rules: TaskRecordRules = DEFAULT_TASK_RECORD_RULES,
): ExecutionUnit {
  if (executorId !== undefined) {
    if (rules.maxIdChars !== undefined) checkIdString('executorId', executorId, false, rules.maxIdChars);
    else if (typeof executorId !== 'string') throw new ValidationError('executorId must be a string');
  }
  const state = unitMachine.next(unit.state, event);
  return { ...unit, state, executorId: executorId ?? unit.executorId, updatedAt: now };
}

/** Shape checks that need no stored unit. */
export function checkProgress(progress: UnitProgress): void {
  const { from, to, delivered, offline } = progress;
  if (!isCount(from) || !isCount(to))
    throw new ValidationError('progress from/to must be non-negative integers', { from, to });
  if (!isCount(delivered) || !isCount(offline))
    throw new ValidationError('progress counts must be non-negative integers', { delivered, offline });
  if (to <= from) throw new ValidationError('progress must move forward: to > from', { from, to });
}

/** Range checks against the stored unit: start <= from < to <= end. */
export function checkProgressInUnit(unit: ExecutionUnit, progress: UnitProgress): void {
  if (progress.from < unit.start || progress.to > unit.end) {
    throw new ValidationError('progress outside the unit range', {
      unitNo: unit.unitNo,
      start: unit.start,
      end: unit.end,
      from: progress.from,
      to: progress.to,
    });
  }
}

/**
 * The unit after checkpointing `progress` (validated first). Idempotent: only
 * progress that starts at the stored checkpoint applies; a replayed or
 * out-of-order batch is ignored and the unit returned as it was (the same object).
 */
export function applyUnitProgress(unit: ExecutionUnit, progress: UnitProgress, now: number): ExecutionUnit {
  checkProgress(progress);
  checkProgressInUnit(unit, progress);
  if (progress.from !== unit.checkpoint) return unit;
  return {
    ...unit,
    checkpoint: progress.to,
    delivered: unit.delivered + progress.delivered,
    offline: unit.offline + progress.offline,
    updatedAt: now,
  };
}

export function checkListMeta(meta: ListMeta, rules: TaskRecordRules = DEFAULT_TASK_RECORD_RULES): void {
  if (typeof meta?.id !== 'string' || meta.id === '')
    throw new ValidationError('list id must be a non-empty string', { id: meta?.id });
  if (!rules.strictShapes) {
    if (typeof meta.accountId !== 'string') throw new ValidationError('list accountId must be a string');
    checkIdUnder(rules, 'list id', meta.id, true);
    checkIdUnder(rules, 'list accountId', meta.accountId);
    return;
  }
  checkIdString('list id', meta.id, true, rules.maxIdChars);
  checkIdString('list accountId', meta.accountId, false, rules.maxIdChars);
  if (!isCount(meta.count) || !isCount(meta.bytes))
    throw new ValidationError('list count and bytes must be non-negative integers', {
      count: meta.count,
      bytes: meta.bytes,
    });
  if (!isU32(meta.checksum)) throw new ValidationError('list checksum must be a u32', { checksum: meta.checksum });
  if (typeof meta.sorted !== 'boolean' || typeof meta.unique !== 'boolean')
    throw new ValidationError('list sorted and unique must be booleans');
  if (!isTimeUnder(rules)(meta.createdAt)) {
    throw new ValidationError(
      `list createdAt must be ${rules.times === 'integer' ? 'an integer' : 'a finite'} number of epoch ms`,
      { createdAt: meta.createdAt },
    );
  }
}
