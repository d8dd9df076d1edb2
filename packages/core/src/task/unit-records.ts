/*
 * The execution-unit half of the TaskStore contract: validating putUnits
 * requests and unit progress, building unit records, moving them through the
 * unit machine and checkpointing progress. Pure: no I/O. Failures are
 * ValidationError (VALIDATION_FAILED).
 */
import { ValidationError } from '../errors';
import type { UnitProgress } from '../ports/task-store';
import type { ExecutionUnit, NewUnit } from './model';
import {
  checkIdString,
  checkIdUnder,
  DEFAULT_TASK_RECORD_RULES,
  isCount,
  isU32,
  type TaskRecordRules,
} from './record-rules';
import { unitMachine, type UnitEvent } from './unit-machine';

export function checkUnitNo(unitNo: number): void {
  if (!isU32(unitNo)) throw new ValidationError('unitNo must be a u32', { unitNo });
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
