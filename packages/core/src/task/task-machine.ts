import { defineMachine } from './machine';

/**
 * The task lifecycle. A task is persisted in one of these states after every
 * transition; recovery re-enters the work that belongs to the stored state.
 *
 *   CREATED -> SCHEDULED (send time in the future) -> QUEUED (waiting for an executor slot)
 *   QUEUED -> PREPROCESSING (filter chain) -> DISPATCHING (split into units) -> SENDING
 *   SENDING -> PREEMPTED (normal task stopped at a checkpoint for a real-time one) -> SENDING
 *   any live state -> PAUSED (operator) -> QUEUED, or SCHEDULED when resumed before
 *   its send time; and the terminal states
 *   COMPLETED, CANCELLED, FAILED, EXPIRED.
 *
 * `requeue` is recovery: a task whose owner died mid-stage goes back to the
 * queue; `resumeSending` re-enters SENDING from the units' checkpoints when
 * pre-processing already happened.
 */
export const TASK_STATES = [
  'CREATED',
  'SCHEDULED',
  'QUEUED',
  'PREPROCESSING',
  'DISPATCHING',
  'SENDING',
  'PREEMPTED',
  'PAUSED',
  'COMPLETED',
  'CANCELLED',
  'FAILED',
  'EXPIRED',
] as const;
export type TaskState = (typeof TASK_STATES)[number];

export const TASK_EVENTS = [
  'schedule',
  'enqueue',
  'admit',
  'preprocessed',
  'dispatched',
  'resumeSending',
  'complete',
  'preempt',
  'pause',
  'resume',
  'requeue',
  'cancel',
  'fail',
  'expire',
] as const;
export type TaskEvent = (typeof TASK_EVENTS)[number];

export const taskMachine = defineMachine<TaskState, TaskEvent>('task', TASK_STATES, TASK_EVENTS, {
  CREATED: { schedule: 'SCHEDULED', enqueue: 'QUEUED', pause: 'PAUSED', cancel: 'CANCELLED', fail: 'FAILED' },
  SCHEDULED: { enqueue: 'QUEUED', pause: 'PAUSED', cancel: 'CANCELLED', expire: 'EXPIRED' },
  QUEUED: { admit: 'PREPROCESSING', resumeSending: 'SENDING', pause: 'PAUSED', cancel: 'CANCELLED', expire: 'EXPIRED' },
  PREPROCESSING: {
    preprocessed: 'DISPATCHING',
    requeue: 'QUEUED',
    pause: 'PAUSED',
    cancel: 'CANCELLED',
    fail: 'FAILED',
  },
  DISPATCHING: { dispatched: 'SENDING', requeue: 'QUEUED', pause: 'PAUSED', cancel: 'CANCELLED', fail: 'FAILED' },
  SENDING: {
    complete: 'COMPLETED',
    preempt: 'PREEMPTED',
    pause: 'PAUSED',
    requeue: 'QUEUED',
    cancel: 'CANCELLED',
    fail: 'FAILED',
    expire: 'EXPIRED',
  },
  PREEMPTED: { resumeSending: 'SENDING', pause: 'PAUSED', cancel: 'CANCELLED', expire: 'EXPIRED' },
  PAUSED: { resume: 'QUEUED', schedule: 'SCHEDULED', cancel: 'CANCELLED', expire: 'EXPIRED' },
  COMPLETED: {},
  CANCELLED: {},
  FAILED: {},
  EXPIRED: {},
});

export const TERMINAL_TASK_STATES: readonly TaskState[] = TASK_STATES.filter((s) => taskMachine.isTerminal(s));
