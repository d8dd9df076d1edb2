import { IllegalTransitionError, HeraldError } from '../errors';
import { unitMachine, UNIT_STATES, UNIT_EVENTS, type UnitState, type UnitEvent } from './unit-machine';

/**
 * The allowed transitions, written out from the lifecycle in the doc comment of
 * unit-machine.ts (not read back from the machine):
 *
 *   PENDING -> ASSIGNED (given to an executor) -> RUNNING (first batch confirmed)
 *   RUNNING -> RUNNING (checkpoint) -> DONE
 *   ASSIGNED/RUNNING -> CHECKPOINTED (stop: preemption or pause) -> ASSIGNED
 *   ASSIGNED/RUNNING -> REASSIGNED (executor lost) -> ASSIGNED
 *   ASSIGNED/RUNNING -> FAILED -> REASSIGNED (retry)
 *   cancel (the task was cancelled): every non-terminal state -> CANCELLED
 *
 * One arrow the comment does not draw: ASSIGNED -> DONE, a unit whose single
 * batch is confirmed complete at once (it never reports a first partial batch).
 */
const ALLOWED: readonly (readonly [UnitState, UnitEvent, UnitState])[] = [
  ['PENDING', 'assign', 'ASSIGNED'],
  ['PENDING', 'cancel', 'CANCELLED'],

  ['ASSIGNED', 'start', 'RUNNING'],
  ['ASSIGNED', 'finish', 'DONE'],
  ['ASSIGNED', 'stop', 'CHECKPOINTED'],
  ['ASSIGNED', 'lose', 'REASSIGNED'],
  ['ASSIGNED', 'fail', 'FAILED'],
  ['ASSIGNED', 'cancel', 'CANCELLED'],

  ['RUNNING', 'checkpoint', 'RUNNING'],
  ['RUNNING', 'finish', 'DONE'],
  ['RUNNING', 'stop', 'CHECKPOINTED'],
  ['RUNNING', 'lose', 'REASSIGNED'],
  ['RUNNING', 'fail', 'FAILED'],
  ['RUNNING', 'cancel', 'CANCELLED'],

  ['CHECKPOINTED', 'assign', 'ASSIGNED'],
  ['CHECKPOINTED', 'cancel', 'CANCELLED'],

  ['REASSIGNED', 'assign', 'ASSIGNED'],
  ['REASSIGNED', 'cancel', 'CANCELLED'],

  ['FAILED', 'retry', 'REASSIGNED'],
  ['FAILED', 'cancel', 'CANCELLED'],
];

const TERMINAL: readonly UnitState[] = ['DONE', 'CANCELLED'];

const expected = new Map(ALLOWED.map(([from, event, to]) => [`${from}/${event}`, to]));

describe('unitMachine', () => {
  it('the expected table has no duplicate (state, event) pair and names only known states and events', () => {
    expect(expected.size).toBe(ALLOWED.length);
    for (const [from, event, to] of ALLOWED) {
      expect(UNIT_STATES).toContain(from);
      expect(UNIT_STATES).toContain(to);
      expect(UNIT_EVENTS).toContain(event);
    }
  });

  it('knows exactly the lifecycle states and events', () => {
    expect([...UNIT_STATES].sort()).toEqual(
      ['PENDING', 'ASSIGNED', 'RUNNING', 'CHECKPOINTED', 'REASSIGNED', 'FAILED', 'DONE', 'CANCELLED'].sort(),
    );
    expect([...UNIT_EVENTS].sort()).toEqual(
      ['assign', 'start', 'checkpoint', 'stop', 'finish', 'lose', 'fail', 'retry', 'cancel'].sort(),
    );
    expect(unitMachine.name).toBe('unit');
  });

  const pairs = UNIT_STATES.flatMap((state) => UNIT_EVENTS.map((event) => [state, event] as const));

  describe.each(pairs)('%s + %s', (state, event) => {
    const to = expected.get(`${state}/${event}`);
    if (to !== undefined) {
      it(`-> ${to}`, () => {
        expect(unitMachine.next(state, event)).toBe(to);
        expect(unitMachine.can(state, event)).toBe(true);
      });
    } else {
      it('is illegal', () => {
        expect(unitMachine.can(state, event)).toBe(false);
        let thrown: unknown;
        try {
          unitMachine.next(state, event);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(IllegalTransitionError);
        expect(thrown).toBeInstanceOf(HeraldError);
        const err = thrown as IllegalTransitionError;
        expect(err.code).toBe('ILLEGAL_TRANSITION');
        expect(err.details).toEqual({ machine: 'unit', from: state, event });
      });
    }
  });

  it('has exactly DONE and CANCELLED as terminal states', () => {
    for (const state of UNIT_STATES)
      expect([state, unitMachine.isTerminal(state)]).toEqual([state, TERMINAL.includes(state)]);
  });

  it('can reach a terminal state from every non-terminal state', () => {
    for (const start of UNIT_STATES.filter((s) => !unitMachine.isTerminal(s))) {
      const seen = new Set<UnitState>([start]);
      const queue: UnitState[] = [start];
      let reached = false;
      while (queue.length > 0 && !reached) {
        const state = queue.shift()!;
        for (const event of UNIT_EVENTS) {
          if (!unitMachine.can(state, event)) continue;
          const to = unitMachine.next(state, event);
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

  it('can reach DONE from every non-terminal state (a failed or lost unit is retried to completion)', () => {
    const reachesDone = (start: UnitState): boolean => {
      const seen = new Set<UnitState>([start]);
      const queue: UnitState[] = [start];
      while (queue.length > 0) {
        const state = queue.shift()!;
        if (state === 'DONE') return true;
        for (const event of UNIT_EVENTS) {
          if (!unitMachine.can(state, event)) continue;
          const to = unitMachine.next(state, event);
          if (!seen.has(to)) {
            seen.add(to);
            queue.push(to);
          }
        }
      }
      return false;
    };
    for (const start of UNIT_STATES.filter((s) => !TERMINAL.includes(s)))
      expect([start, reachesDone(start)]).toEqual([start, true]);
  });

  it('walks a unit through preemption, executor loss and a failed retry to DONE', () => {
    const path: UnitEvent[] = [
      'assign',
      'start',
      'checkpoint',
      'stop',
      'assign',
      'start',
      'lose',
      'assign',
      'fail',
      'retry',
      'assign',
      'start',
      'finish',
    ];
    let state: UnitState = 'PENDING';
    for (const event of path) state = unitMachine.next(state, event);
    expect(state).toBe('DONE');
  });

  it('rejects Object.prototype names as events and states', () => {
    for (const name of ['constructor', 'toString', '__proto__']) {
      expect(() => unitMachine.next('RUNNING', name as UnitEvent)).toThrow(IllegalTransitionError);
      expect(unitMachine.can('RUNNING', name as UnitEvent)).toBe(false);
      expect(() => unitMachine.next(name as UnitState, 'assign')).toThrow(IllegalTransitionError);
    }
  });
});
