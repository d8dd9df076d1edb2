import { HeraldError, IllegalTransitionError } from '../errors';
import { APTA_EVENTS, APTA_STATES, aptaMachine, type AptaEvent, type AptaState } from './states';

/**
 * The allowed transitions, written out from the seed (002, "APTA 介绍") and
 * docs/apta.md, not read back from the machine:
 *
 *   ONLINE -> SILENCE   on LSR replies from every process in the table (seed)
 *   SILENCE -> WORKING  after the silence period (seed)
 *   WORKING -> SILENCE  on any LSR (seed); SILENCE -> SILENCE restarts it
 *   WORKING -> OFFLINE  no Hello in, no Hello answered (seed); the same from
 *                       JOINING, ONLINE and SILENCE
 *   JOINING -> ONLINE   known to every member
 *   OFFLINE -> JOINING  contact again
 */
const ALLOWED: readonly (readonly [AptaState, AptaEvent, AptaState])[] = [
  ['JOINING', 'accepted', 'ONLINE'],
  ['JOINING', 'lostContact', 'OFFLINE'],
  ['ONLINE', 'synced', 'SILENCE'],
  ['ONLINE', 'lostContact', 'OFFLINE'],
  ['SILENCE', 'silenceElapsed', 'WORKING'],
  ['SILENCE', 'lsr', 'SILENCE'],
  ['SILENCE', 'lostContact', 'OFFLINE'],
  ['WORKING', 'lsr', 'SILENCE'],
  ['WORKING', 'lostContact', 'OFFLINE'],
  ['OFFLINE', 'contact', 'JOINING'],
];

const expected = new Map(ALLOWED.map(([from, event, to]) => [`${from}/${event}`, to]));

describe('aptaMachine', () => {
  it('knows exactly the five seed states and the six events', () => {
    expect([...APTA_STATES].sort()).toEqual(['JOINING', 'OFFLINE', 'ONLINE', 'SILENCE', 'WORKING']);
    expect([...APTA_EVENTS].sort()).toEqual(['accepted', 'contact', 'lostContact', 'lsr', 'silenceElapsed', 'synced']);
    expect(aptaMachine.name).toBe('apta');
    expect(expected.size).toBe(ALLOWED.length);
  });

  const pairs = APTA_STATES.flatMap((state) => APTA_EVENTS.map((event) => [state, event] as const));

  describe.each(pairs)('%s + %s', (state, event) => {
    const to = expected.get(`${state}/${event}`);
    if (to !== undefined) {
      it(`-> ${to}`, () => {
        expect(aptaMachine.next(state, event)).toBe(to);
        expect(aptaMachine.can(state, event)).toBe(true);
      });
    } else {
      it('is illegal', () => {
        expect(aptaMachine.can(state, event)).toBe(false);
        let thrown: unknown;
        try {
          aptaMachine.next(state, event);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(IllegalTransitionError);
        expect(thrown).toBeInstanceOf(HeraldError);
        expect((thrown as IllegalTransitionError).code).toBe('ILLEGAL_TRANSITION');
        expect((thrown as IllegalTransitionError).details).toEqual({ machine: 'apta', from: state, event });
      });
    }
  });

  it('has no terminal state: OFFLINE comes back through JOINING', () => {
    for (const state of APTA_STATES) expect([state, aptaMachine.isTerminal(state)]).toEqual([state, false]);
  });

  it('walks the seed path JOINING -> ONLINE -> SILENCE -> WORKING, and back through SILENCE on an LSR', () => {
    const path: AptaEvent[] = [
      'accepted',
      'synced',
      'silenceElapsed',
      'lsr',
      'silenceElapsed',
      'lostContact',
      'contact',
    ];
    const seen: AptaState[] = ['JOINING'];
    for (const event of path) seen.push(aptaMachine.next(seen[seen.length - 1]!, event));
    expect(seen).toEqual(['JOINING', 'ONLINE', 'SILENCE', 'WORKING', 'SILENCE', 'WORKING', 'OFFLINE', 'JOINING']);
  });
});
