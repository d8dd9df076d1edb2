import { ValidationError } from '@herald/core';

/** The offline store's checks of a caller's ids, each a typed error naming the field. */
export function checkTaskId(taskId: number): void {
  if (!Number.isSafeInteger(taskId) || taskId < 0)
    throw new ValidationError('taskId must be a non-negative safe integer', { taskId });
}

export function checkUin(uin: number): void {
  if (!Number.isInteger(uin) || uin < 0 || uin > 0xffffffff)
    throw new ValidationError('uin must be an integer in [0, 2^32)', { uin });
}
