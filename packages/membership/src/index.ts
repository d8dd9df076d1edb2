/**
 * @module @herald/membership
 *
 * The APTA membership of one process over ZeroMQ (docs/apta.md): core's pure
 * state machine (`aptaStep`) driven by the messages a PULL receives and by
 * one timer, its Hellos and LSRs sent through one PUSH per peer. Schedulers
 * join with `takesWork: true` and own what the ring gives them while WORKING;
 * interface processes join with `takesWork: false` and use the ring to route.
 *
 * @example
 *   import { startMembership } from '@herald/membership';
 *   const membership = await startMembership({
 *     id: 'scheduler-1',
 *     endpoint: 'tcp://10.0.0.5:7201',
 *     peers: [{ id: 'scheduler-2', endpoint: 'tcp://10.0.0.6:7201' }, { id: 'interface-1', endpoint: 'tcp://10.0.0.9:7201' }],
 *     apta: { helloIntervalMs: 1000 },
 *   });
 *   membership.onChange((change) => {
 *     if (change.type === 'ring') reassign(change.ring); // undefined: own nothing
 *   });
 *   membership.ring()?.ownerOf(taskId);
 *   await membership.close();
 */
export { startMembership } from './membership';
export type { Membership, MembershipChange, MembershipListener } from './membership';
export { compileMembershipOptions, MEMBERSHIP_DEFAULTS } from './options';
export type {
  MembershipOptions,
  MembershipConfig,
  MembershipPeer,
  MembershipCurveOptions,
  MembershipTimers,
} from './options';
