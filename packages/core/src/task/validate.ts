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
 *
 * Split by subject: record-rules.ts (the rules and shared checks),
 * task-query.ts (read arguments), unit-records.ts (execution units); this
 * module keeps new tasks, patches, fences and list metadata, and re-exports
 * the rest so `./validate` stays the one place core modules import them from.
 */
import { ErrorCodes, HeraldError, QueryError, ValidationError } from '../errors';
import { parseTargetingQuery } from '../targeting/query';
import type { TaskPatch } from '../ports/task-store';
import type { Fence } from './fence';
import { compileContent } from '../template/content';
import { taskContentOf } from './content';
import {
  CANARY_STATES,
  CHANNEL_HOLD_STATES,
  DEAD_LETTER_REASON,
  emptyReport,
  FILTER_REASONS,
  type CanaryReport,
  type ChannelHold,
  type FilterReason,
  type ListMeta,
  type LocalGroup,
  type NewTask,
  type Task,
  type TaskReport,
} from './model';
import { checkCollapseKey } from './collapse-key';
import { checkTaskRollout } from '../rollout/parse';
import { isTaskEngagement, mergeEngagement } from '../rollout/engagement';
import { checkDeliverAt, MAX_LOCAL_GROUPS } from '../time/local-time';
import { checkQuietHours } from '../time/quiet-hours';
import {
  checkIdString,
  checkIdUnder,
  DEFAULT_TASK_RECORD_RULES,
  isCount,
  isTimeUnder,
  isU32,
  type TaskRecordRules,
} from './record-rules';

export { checkCollapseKey, collapseScopeOf, MAX_COLLAPSE_KEY_CHARS } from './collapse-key';
export { DEFAULT_TASK_RECORD_RULES, checkIdString, isTaskId, checkNow } from './record-rules';
export type { TaskRecordRules } from './record-rules';
export {
  TASK_QUERY_DEFAULT_LIMIT,
  TASK_QUERY_MAX_LIMIT,
  TASK_QUERY_MAX_ACCOUNTS,
  checkLimit,
  checkOutboxRead,
  compileTaskQuery,
  checkContentQuery,
} from './task-query';
export type { CompiledTaskQuery } from './task-query';
export {
  checkUnitNo,
  checkNewUnits,
  newUnitRecord,
  transitionedUnit,
  checkProgress,
  checkProgressInUnit,
  applyUnitProgress,
} from './unit-records';

/** The longest idempotency key a task may carry, in characters (every adapter, so both profiles agree). */
export const MAX_IDEMPOTENCY_KEY_CHARS = 255;

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
  if (input.collapseKey !== undefined) checkCollapseKey(input.collapseKey);
  if (input.rollout !== undefined) checkTaskRollout(input.rollout);
  // Epoch ms at or after 0 under every store's rules: a bound the ledger compares send times with.
  const since = input.noResendSince;
  if (since !== undefined && (!isTime(since) || !Number.isSafeInteger(since) || since < 0))
    fail('noResendSince', since);
  if (input.deliverAt !== undefined) checkDeliverAt(input.deliverAt);
  if (input.quietHours !== undefined) checkQuietHours(input.quietHours);
  // A canary sends the first positions of the uin-sorted filtered list and holds the rest; a grouped task (local
  // time or quiet hours, the account's default included) sends group after group from its delivery-order list,
  // each at its zone's instant. Neither hold can wait on the other, so the pair is refused (docs/rollouts.md,
  // docs/local-time.md). Variants and the holdout place each uin by hash, wherever it sits: they compose.
  if (input.rollout?.canary !== undefined && (input.deliverAt !== undefined || input.quietHours !== undefined))
    throw new ValidationError('canary cannot be combined with local-time delivery (deliverAt or quietHours)', {
      field: 'canary',
    });
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
    ...(input.collapseKey === undefined ? {} : { collapseKey: input.collapseKey }),
    ...(input.rollout === undefined ? {} : { rollout: checkTaskRollout(input.rollout) }),
    ...(input.deliverAt === undefined ? {} : { deliverAt: { ...input.deliverAt } }),
    ...(input.quietHours === undefined ? {} : { quietHours: { ...input.quietHours } }),
    speed: input.speed ?? null,
    targeting: input.targeting ?? null,
    noResendSince: input.noResendSince ?? null,
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

/** A fence argument: epoch a non-negative integer. Returns the fence. */
export function checkedFence(fence: Fence): Fence {
  if (!Number.isSafeInteger(fence?.epoch) || fence.epoch < 0)
    throw new ValidationError('fence.epoch must be a non-negative integer', { fence });
  return fence;
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
  checkDeadLetters(report.deadLetters);
  checkChannelHold(report.channel);
  checkCanaryReport(report.canary);
  if (report.engagement !== undefined && !isTaskEngagement(report.engagement))
    throw new ValidationError('report.engagement must be { clicks, opens?, reportedAt } counts', {
      field: 'engagement',
    });
  checkLocalGroups(report.localGroups);
}

function checkCanaryReport(canary: CanaryReport | undefined): void {
  if (canary === undefined) return;
  const ratio = (x: unknown) => x === undefined || (typeof x === 'number' && x >= 0 && x <= 1);
  if (
    canary === null ||
    typeof canary !== 'object' ||
    !isCount(canary.sample) ||
    !(CANARY_STATES as readonly string[]).includes(canary.state) ||
    typeof canary.holdUntil !== 'number' ||
    !Number.isFinite(canary.holdUntil) ||
    !ratio(canary.rejectedRatio) ||
    !ratio(canary.failedRatio) ||
    !(canary.clickThrough === undefined || (typeof canary.clickThrough === 'number' && canary.clickThrough >= 0))
  )
    throw new ValidationError('report.canary must be { sample, state, holdUntil, rejectedRatio?, failedRatio? }', {
      field: 'canary',
    });
}

function checkLocalGroups(groups: LocalGroup[] | undefined): void {
  if (groups === undefined) return;
  const fail = () => {
    throw new ValidationError('report.localGroups must be a list of local-time groups', { field: 'localGroups' });
  };
  if (!Array.isArray(groups) || groups.length > MAX_LOCAL_GROUPS) fail();
  for (const g of groups) {
    const counts = [g?.start, g?.end, g?.delivered, g?.offline, g?.releaseAt];
    if (!counts.every(isCount) || g.end < g.start || !Number.isInteger(g.offsetMinutes)) fail();
    if (typeof g.skipped !== 'boolean' || typeof g.released !== 'boolean') fail();
    if (g.heldUntil !== undefined && !isCount(g.heldUntil)) fail();
  }
}

function checkDeadLetters(deadLetters: Record<string, number> | undefined): void {
  if (deadLetters === undefined) return;
  if (deadLetters === null || typeof deadLetters !== 'object' || Array.isArray(deadLetters))
    throw new ValidationError('report.deadLetters must be an object of counts by reason', { field: 'deadLetters' });
  for (const [reason, n] of Object.entries(deadLetters)) {
    if (!DEAD_LETTER_REASON.test(reason))
      throw new ValidationError('report.deadLetters has a reason that is not a token of [a-z0-9_.-]', { reason });
    if (!isCount(n))
      throw new ValidationError(`report.deadLetters.${reason} must be a non-negative integer`, { reason, value: n });
  }
}

function checkChannelHold(channel: ChannelHold | null | undefined): void {
  if (channel === undefined || channel === null) return;
  if (
    typeof channel !== 'object' ||
    !(CHANNEL_HOLD_STATES as readonly string[]).includes(channel.state) ||
    typeof channel.reason !== 'string' ||
    Object.keys(channel).some((key) => key !== 'state' && key !== 'reason')
  )
    throw new ValidationError("report.channel must be null or { state: 'throttled' | 'unavailable', reason }", {
      field: 'channel',
    });
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
    // Counted by the owning scheduler, which sends the whole map: it replaces the stored one.
    if (patch.report.deadLetters !== undefined) report.deadLetters = { ...patch.report.deadLetters };
    if (patch.report.channel !== undefined) report.channel = patch.report.channel;
    // The canary's standing is written whole, by its scheduler or by a promote (docs/rollouts.md).
    if (patch.report.canary !== undefined) report.canary = { ...patch.report.canary };
    // Reported running totals: merged inside the store's update, so two reports racing never lower a count.
    if (patch.report.engagement !== undefined)
      report.engagement = mergeEngagement(task.report.engagement, patch.report.engagement);
    // Written whole by the owning scheduler (local-release.ts): the list replaces the stored one.
    if (patch.report.localGroups !== undefined) report.localGroups = patch.report.localGroups.map((g) => ({ ...g }));
    next.report = report;
  }
  return next;
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
