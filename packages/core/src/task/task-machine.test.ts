import { IllegalTransitionError, HeraldError } from '../errors';
import {
  taskMachine,
  TASK_STATES,
  TASK_EVENTS,
  TERMINAL_TASK_STATES,
  type TaskState,
  type TaskEvent,
} from './task-machine';

/**
 * The allowed transitions, written out from the lifecycle in the doc comment of
 * task-machine.ts (not read back from the machine):
 *
 *   CREATED -> SCHEDULED (send time in the future), or straight to QUEUED (send now)
 *   SCHEDULED -> QUEUED -> PREPROCESSING -> DISPATCHING -> SENDING -> COMPLETED
 *   SENDING -> PREEMPTED -> SENDING (resumeSending, from the units' checkpoints)
 *   QUEUED -> SENDING (resumeSending: pre-processing already happened)
 *   any live state -> PAUSED (operator) -> QUEUED (resume)
 *   requeue (recovery, owner died mid-stage): PREPROCESSING, DISPATCHING, SENDING -> QUEUED
 *   cancel (operator): every live state -> CANCELLED
 *   fail: where work runs (CREATED validation, PREPROCESSING, DISPATCHING, SENDING) -> FAILED
 *   expire: where the task waits (SCHEDULED, QUEUED, PREEMPTED, PAUSED) and SENDING -> EXPIRED;
 *     a PREPROCESSING/DISPATCHING stage finishes (or fails) first and expires once SENDING.
 */
const ALLOWED: readonly (readonly [TaskState, TaskEvent, TaskState])[] = [
  ['CREATED', 'schedule', 'SCHEDULED'],
  ['CREATED', 'enqueue', 'QUEUED'],
  ['CREATED', 'pause', 'PAUSED'],
  ['CREATED', 'cancel', 'CANCELLED'],
  ['CREATED', 'fail', 'FAILED'],

  ['SCHEDULED', 'enqueue', 'QUEUED'],
  ['SCHEDULED', 'pause', 'PAUSED'],
  ['SCHEDULED', 'cancel', 'CANCELLED'],
  ['SCHEDULED', 'expire', 'EXPIRED'],

  ['QUEUED', 'admit', 'PREPROCESSING'],
  ['QUEUED', 'resumeSending', 'SENDING'],
  ['QUEUED', 'pause', 'PAUSED'],
  ['QUEUED', 'cancel', 'CANCELLED'],
  ['QUEUED', 'expire', 'EXPIRED'],

  ['PREPROCESSING', 'preprocessed', 'DISPATCHING'],
  ['PREPROCESSING', 'requeue', 'QUEUED'],
  ['PREPROCESSING', 'pause', 'PAUSED'],
  ['PREPROCESSING', 'cancel', 'CANCELLED'],
  ['PREPROCESSING', 'fail', 'FAILED'],

  ['DISPATCHING', 'dispatched', 'SENDING'],
  ['DISPATCHING', 'requeue', 'QUEUED'],
  ['DISPATCHING', 'pause', 'PAUSED'],
  ['DISPATCHING', 'cancel', 'CANCELLED'],
  ['DISPATCHING', 'fail', 'FAILED'],

  ['SENDING', 'complete', 'COMPLETED'],
  ['SENDING', 'preempt', 'PREEMPTED'],
  ['SENDING', 'pause', 'PAUSED'],
  ['SENDING', 'requeue', 'QUEUED'],
  ['SENDING', 'cancel', 'CANCELLED'],
  ['SENDING', 'fail', 'FAILED'],
  ['SENDING', 'expire', 'EXPIRED'],

  ['PREEMPTED', 'resumeSending', 'SENDING'],
  ['PREEMPTED', 'pause', 'PAUSED'],
  ['PREEMPTED', 'cancel', 'CANCELLED'],
  ['PREEMPTED', 'expire', 'EXPIRED'],

  ['PAUSED', 'resume', 'QUEUED'],
  ['PAUSED', 'schedule', 'SCHEDULED'],
  ['PAUSED', 'cancel', 'CANCELLED'],
  ['PAUSED', 'expire', 'EXPIRED'],
];

const TERMINAL: readonly TaskState[] = ['COMPLETED', 'CANCELLED', 'FAILED', 'EXPIRED'];

const expected = new Map(ALLOWED.map(([from, event, to]) => [`${from}/${event}`, to]));

describe('taskMachine', () => {
  it('the expected table has no duplicate (state, event) pair and names only known states and events', () => {
    expect(expected.size).toBe(ALLOWED.length);
    for (const [from, event, to] of ALLOWED) {
      expect(TASK_STATES).toContain(from);
      expect(TASK_STATES).toContain(to);
      expect(TASK_EVENTS).toContain(event);
    }
  });

  it('knows exactly the lifecycle states and events', () => {
    expect([...TASK_STATES].sort()).toEqual(
      [
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
      ].sort(),
    );
    expect([...TASK_EVENTS].sort()).toEqual(
      [
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
      ].sort(),
    );
    expect(taskMachine.name).toBe('task');
  });

  const pairs = TASK_STATES.flatMap((state) => TASK_EVENTS.map((event) => [state, event] as const));

  describe.each(pairs)('%s + %s', (state, event) => {
    const to = expected.get(`${state}/${event}`);
    if (to !== undefined) {
      it(`-> ${to}`, () => {
        expect(taskMachine.next(state, event)).toBe(to);
        expect(taskMachine.can(state, event)).toBe(true);
      });
    } else {
      it('is illegal', () => {
        expect(taskMachine.can(state, event)).toBe(false);
        let thrown: unknown;
        try {
          taskMachine.next(state, event);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(IllegalTransitionError);
        expect(thrown).toBeInstanceOf(HeraldError);
        const err = thrown as IllegalTransitionError;
        expect(err.code).toBe('ILLEGAL_TRANSITION');
        expect(err.retriable).toBe(false);
        expect(err.details).toEqual({ machine: 'task', from: state, event });
      });
    }
  });

  it('has exactly COMPLETED, CANCELLED, FAILED and EXPIRED as terminal states', () => {
    for (const state of TASK_STATES)
      expect([state, taskMachine.isTerminal(state)]).toEqual([state, TERMINAL.includes(state)]);
    expect([...TERMINAL_TASK_STATES].sort()).toEqual([...TERMINAL].sort());
  });

  it('accepts no event at all in a terminal state', () => {
    for (const state of TERMINAL) for (const event of TASK_EVENTS) expect(taskMachine.can(state, event)).toBe(false);
  });

  it('can reach a terminal state from every non-terminal state', () => {
    for (const start of TASK_STATES.filter((s) => !taskMachine.isTerminal(s))) {
      const seen = new Set<TaskState>([start]);
      const queue: TaskState[] = [start];
      let reached = false;
      while (queue.length > 0 && !reached) {
        const state = queue.shift()!;
        for (const event of TASK_EVENTS) {
          if (!taskMachine.can(state, event)) continue;
          const to = taskMachine.next(state, event);
          if (TERMINAL.includes(to)) reached = true;
          if (!seen.has(to)) {
            seen.add(to);
            queue.push(to);
          }
        }
      }
      expect([start, reached]).toEqual([start, true]);
    }
  });

  it('can reach COMPLETED from CREATED along the happy path', () => {
    const path: TaskEvent[] = [
      'schedule',
      'enqueue',
      'admit',
      'preprocessed',
      'dispatched',
      'preempt',
      'resumeSending',
      'complete',
    ];
    let state: TaskState = 'CREATED';
    for (const event of path) state = taskMachine.next(state, event);
    expect(state).toBe('COMPLETED');
  });

  it('rejects unknown states and events, including Object.prototype names', () => {
    const odd = ['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'bogus'];
    for (const name of odd) {
      expect(() => taskMachine.next('SENDING', name as TaskEvent)).toThrow(IllegalTransitionError);
      expect(taskMachine.can('SENDING', name as TaskEvent)).toBe(false);
      expect(() => taskMachine.next(name as TaskState, 'cancel')).toThrow(IllegalTransitionError);
      expect(taskMachine.can(name as TaskState, 'cancel')).toBe(false);
    }
  });
});
