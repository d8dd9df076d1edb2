import type { TaskState } from '../api/types';

export type TaskCommand = 'pause' | 'resume' | 'cancel';

/**
 * Which commands a task's state accepts: the pause, resume and cancel
 * columns of core's task machine (docs/architecture.md, "Task lifecycle").
 * The server checks again (409 ILLEGAL_TRANSITION); this only decides which
 * buttons are enabled. test/contract.test.ts compares it with core.
 */
const ALLOWED: Record<TaskCommand, readonly TaskState[]> = {
  pause: ['CREATED', 'SCHEDULED', 'QUEUED', 'PREPROCESSING', 'DISPATCHING', 'SENDING', 'PREEMPTED'],
  resume: ['PAUSED'],
  cancel: ['CREATED', 'SCHEDULED', 'QUEUED', 'PREPROCESSING', 'DISPATCHING', 'SENDING', 'PREEMPTED', 'PAUSED'],
};

export function canCommand(state: TaskState, command: TaskCommand): boolean {
  return ALLOWED[command].includes(state);
}
