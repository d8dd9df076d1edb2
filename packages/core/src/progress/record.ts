import { ValidationError } from '../errors';
import { checkHistory, type ProgressHistory } from './history';
import { checkWaiting, type WaitingReason } from './waiting';

/**
 * What the task store keeps of a task's progress beside its units: the curve
 * (history) and, while it waits in a queue, why. Written by the task's owner,
 * fenced by its epoch, replaced whole; read by the API.
 */
export interface TaskProgressRecord {
  history: ProgressHistory;
  waiting: WaitingReason | null;
  /** Epoch ms of the write. */
  updatedAt: number;
}

/** A record checked whole (unknown fields are errors); used by the store before it writes. */
export function checkProgressRecord(record: TaskProgressRecord): TaskProgressRecord {
  if (typeof record !== 'object' || record === null) throw new ValidationError('progress record must be an object');
  for (const key of Object.keys(record))
    if (key !== 'history' && key !== 'waiting' && key !== 'updatedAt')
      throw new ValidationError(`progress.${key} is not a known field`);
  checkHistory(record.history, 'progress.history');
  checkWaiting(record.waiting, 'progress.waiting');
  if (!Number.isSafeInteger(record.updatedAt) || record.updatedAt < 0)
    throw new ValidationError('progress.updatedAt must be epoch ms');
  return record;
}
