import { FencedError } from '../errors';
import type { Task } from './model';

/** What every owner write carries: the epoch it was granted when it took the task. */
export interface Fence {
  epoch: number;
}

/** Throws FencedError when a newer owner holds the task. Adapters call this inside their write. */
export function checkFence(task: Pick<Task, 'id' | 'epoch'>, fence: Fence): void {
  if (fence.epoch < task.epoch) throw new FencedError(task.id, fence.epoch, task.epoch);
}
