/*
 * The argument checks and the monotonic rule of the Coordinator contract,
 * shared by every Coordinator adapter (in process and ZooKeeper). Pure: no I/O.
 */
import { ValidationError } from '../errors';
import type { UnitCheckpoint } from './coordinator';

const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** Task ids and unit numbers: non-negative safe integers. */
export function checkUnitKey(taskId: number, unitNo?: number): void {
  if (!isCount(taskId))
    throw new ValidationError(`coordinator: taskId must be a non-negative integer (got ${String(taskId)})`, { taskId });
  if (unitNo !== undefined && !isCount(unitNo))
    throw new ValidationError(`coordinator: unitNo must be a non-negative integer (got ${String(unitNo)})`, { unitNo });
}

export function checkCheckpoint(c: UnitCheckpoint): void {
  checkUnitKey(c.taskId, c.unitNo);
  for (const field of ['epoch', 'checkpoint', 'delivered', 'offline'] as const) {
    if (!isCount(c[field]))
      throw new ValidationError(`coordinator: ${field} must be a non-negative integer (got ${String(c[field])})`, {
        field,
      });
  }
  if (!Number.isFinite(c.at))
    throw new ValidationError(`coordinator: at must be a finite number (got ${c.at})`, { field: 'at' });
}

/** An election role names a znode in ZooKeeper: a non-empty name without '/'. */
export function checkRole(role: string): void {
  if (typeof role !== 'string' || role.length === 0 || role.includes('/') || role === '.' || role === '..') {
    throw new ValidationError(`coordinator: role must be a non-empty name without '/' (got ${JSON.stringify(role)})`, {
      role,
    });
  }
}

export function checkCandidateId(candidateId: string): void {
  if (typeof candidateId !== 'string' || candidateId.length === 0) {
    throw new ValidationError(
      `coordinator: candidateId must be a non-empty string (got ${JSON.stringify(candidateId)})`,
      { candidateId },
    );
  }
}

/**
 * The monotonic rule: `incoming` replaces `stored` only if its epoch is
 * higher, or the epoch is the same and its offset is higher. A lower epoch
 * (a stale owner) never replaces.
 */
export function supersedes(incoming: UnitCheckpoint, stored: UnitCheckpoint): boolean {
  return incoming.epoch > stored.epoch || (incoming.epoch === stored.epoch && incoming.checkpoint > stored.checkpoint);
}

export function byUnit(a: UnitCheckpoint, b: UnitCheckpoint): number {
  return a.taskId - b.taskId || a.unitNo - b.unitNo;
}
