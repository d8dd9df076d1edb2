/**
 * @module @herald/core/apta
 *
 * APTA membership (docs/apta.md), a state machine driven by events and an injected clock:
 * `createMemberView`, then `aptaStep(view, { kind: 'tick' | 'received', now, ... })` gives
 * the next view and the actions to send; `allocateTasks(view.ring)` gives task ownership.
 *
 * @example
 *   import { createMemberView, aptaStep } from '@herald/core/apta';
 *   const { view, actions } = aptaStep(createMemberView(input), { kind: 'tick', now });
 */
export { APTA_STATES, APTA_EVENTS, APTA_ALLOCATION_STATES, aptaMachine } from './states';
export type { AptaState, AptaEvent } from './states';
export { APTA_MESSAGE_KINDS, checkAptaMessage } from './messages';
export type {
  AptaMessage,
  AptaMessageKind,
  AptaAdvert,
  AptaTableEntry,
  AptaHello,
  AptaHelloReply,
  AptaLsrRequest,
  AptaLsrReply,
} from './messages';
export { APTA_DEFAULTS, compileAptaConfig } from './config';
export type { AptaOptions, AptaConfig } from './config';
export { createMemberView, aptaPeer } from './view';
export type { MemberView, NewMemberView, AptaPeerEntry, AptaLsrRound } from './view';
export { aptaStep, aptaNextTickAt } from './step';
export type { AptaInput, AptaAction, AptaStepResult } from './step';
export { aptaOwnershipRing } from './gone';
export type { AptaPeerGoneInput } from './gone';
export { APTA_VNODES, allocateTasks, ownershipMoves } from './allocation';
export type { TaskMove } from './allocation';
