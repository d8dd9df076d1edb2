import { defineMachine } from '../task/machine';

/**
 * APTA membership states (seed 002):
 *
 *   JOINING  new, not yet accepted: not every member knows it yet
 *   ONLINE   known to every member; exchanging link-state (LSR) with each of them
 *   SILENCE  in the cluster but taking no work, for a silence period
 *   WORKING  in the allocation: owns the tasks the ring gives it
 *   OFFLINE  lost contact with every process
 */
export const APTA_STATES = ['JOINING', 'ONLINE', 'SILENCE', 'WORKING', 'OFFLINE'] as const;
export type AptaState = (typeof APTA_STATES)[number];

/**
 * What moves a process between states. `aptaStep` derives these from what it
 * received and from the time; the machine below says which state each one
 * leads to.
 *
 *   accepted        every member lists this process in its job-process table
 *                   (no member yet: every live peer does; nobody heard at all:
 *                   joinTimeoutMs passed, the first process of a new cluster)
 *   synced          LSR replies arrived from every live process in the table
 *   silenceElapsed  silencePeriodMs passed since the last LSR (12 s by default)
 *   lsr             any LSR request or reply arrived: membership is changing
 *   lostContact     nothing arrived from any process for deadIntervalMs: no
 *                   Hello, no answer to its own Hellos
 *   contact         a message arrived again
 */
export const APTA_EVENTS = ['accepted', 'synced', 'silenceElapsed', 'lsr', 'lostContact', 'contact'] as const;
export type AptaEvent = (typeof APTA_EVENTS)[number];

/**
 * The seed's four transitions (ONLINE -> SILENCE, SILENCE -> WORKING,
 * WORKING -> SILENCE, WORKING -> OFFLINE) plus the ones its state definitions
 * imply: JOINING -> ONLINE once known to every member, OFFLINE -> JOINING when
 * contact returns, SILENCE -> SILENCE (an LSR restarts the silence), and
 * lostContact from every state that has peers to lose, so an isolated process
 * can never drift into WORKING on its own.
 */
export const aptaMachine = defineMachine<AptaState, AptaEvent>('apta', APTA_STATES, APTA_EVENTS, {
  JOINING: { accepted: 'ONLINE', lostContact: 'OFFLINE' },
  ONLINE: { synced: 'SILENCE', lostContact: 'OFFLINE' },
  SILENCE: { silenceElapsed: 'WORKING', lsr: 'SILENCE', lostContact: 'OFFLINE' },
  WORKING: { lsr: 'SILENCE', lostContact: 'OFFLINE' },
  OFFLINE: { contact: 'JOINING' },
});

/** States whose holder counts in the allocation set: it is, or is about to be, WORKING. */
export const APTA_ALLOCATION_STATES: readonly AptaState[] = ['SILENCE', 'WORKING'];
