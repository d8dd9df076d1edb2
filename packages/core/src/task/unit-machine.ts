import { defineMachine } from './machine';

/**
 * The execution-unit lifecycle. A unit is a contiguous range of a task's
 * filtered recipient list, sent by one executor; its `checkpoint` (the offset
 * of the first recipient not yet confirmed) is what a resumed unit starts from.
 *
 *   PENDING -> ASSIGNED (given to an executor) -> RUNNING (first batch confirmed)
 *   RUNNING -> RUNNING (checkpoint) -> DONE
 *   ASSIGNED/RUNNING -> CHECKPOINTED (stopped for preemption or pause) -> ASSIGNED
 *   ASSIGNED/RUNNING -> REASSIGNED (executor lost) -> ASSIGNED
 *   ASSIGNED/RUNNING -> FAILED -> REASSIGNED (retry)
 */
export const UNIT_STATES = [
  'PENDING',
  'ASSIGNED',
  'RUNNING',
  'CHECKPOINTED',
  'REASSIGNED',
  'FAILED',
  'DONE',
  'CANCELLED',
] as const;
export type UnitState = (typeof UNIT_STATES)[number];

export const UNIT_EVENTS = [
  'assign',
  'start',
  'checkpoint',
  'stop',
  'finish',
  'lose',
  'fail',
  'retry',
  'cancel',
] as const;
export type UnitEvent = (typeof UNIT_EVENTS)[number];

export const unitMachine = defineMachine<UnitState, UnitEvent>('unit', UNIT_STATES, UNIT_EVENTS, {
  PENDING: { assign: 'ASSIGNED', cancel: 'CANCELLED' },
  ASSIGNED: {
    start: 'RUNNING',
    finish: 'DONE',
    stop: 'CHECKPOINTED',
    lose: 'REASSIGNED',
    fail: 'FAILED',
    cancel: 'CANCELLED',
  },
  RUNNING: {
    checkpoint: 'RUNNING',
    finish: 'DONE',
    stop: 'CHECKPOINTED',
    lose: 'REASSIGNED',
    fail: 'FAILED',
    cancel: 'CANCELLED',
  },
  CHECKPOINTED: { assign: 'ASSIGNED', cancel: 'CANCELLED' },
  REASSIGNED: { assign: 'ASSIGNED', cancel: 'CANCELLED' },
  FAILED: { retry: 'REASSIGNED', cancel: 'CANCELLED' },
  DONE: {},
  CANCELLED: {},
});
