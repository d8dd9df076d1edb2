import { ValidationError } from '../errors';
import { MEMBER_ID } from './messages';
import type { AptaState } from './states';
import type { MemberView } from './view';

/**
 * A process that died, as opposed to one that went silent.
 *
 * The dead interval (4 s by default) is the only proof of death APTA has for
 * a peer that merely stops talking: it may be partitioned, slow or paused,
 * and it still believes it owns its tasks. A process that died is different:
 * its kernel closed its connections, and nothing accepts a new one at its
 * address. The wiring sees that on its own socket to the peer (the
 * connection closes, then reconnecting is refused) and reports it as a
 * `peerGone` input; nothing else does.
 *
 * What it changes:
 *   - the peer is marked OFFLINE at once, as the dead interval would have
 *     later (so a WORKING member announces the change by LSR at once, and the
 *     whole membership goes through SILENCE to the next ring as before:
 *     the full re-allocation still waits for the silence period);
 *   - if it is on the last agreed ring, it is noted in `view.gone`, and the
 *     interim ring (`aptaOwnershipRing`) is that ring without it. Removing a
 *     member from a consistent-hash ring moves only its own arc, to its
 *     successors; every other task keeps its owner. So the successors can
 *     claim (epoch + 1, fencing the dead one) just the dead member's tasks at
 *     once, while the rest of the ring waits for the silence.
 *   - a table row that relays the gone incarnation does not revive it (only a
 *     message from the process itself, or a newer incarnation, does): a peer
 *     that heard its last Hello a moment before it died would otherwise keep
 *     it alive for another dead interval.
 */

/** The wiring's report that a peer's process is gone (see above). `now` is the injected clock, ms. */
export interface AptaPeerGoneInput {
  kind: 'peerGone';
  now: number;
  peer: string;
}

/** States in which a process may own by the interim ring: it agreed on a ring and has not lost contact since. */
const INTERIM_STATES: readonly AptaState[] = ['WORKING', 'SILENCE'];

/** Throws ValidationError unless `input.peer` is a member id. */
export function checkPeerGone(input: AptaPeerGoneInput): void {
  if (typeof input.peer !== 'string' || !MEMBER_ID.test(input.peer))
    throw new ValidationError('peerGone.peer must be a member id (1-64 letters, digits, _ . -)', { peer: input.peer });
}

/**
 * The view with `peer` marked OFFLINE and, when it is on the last agreed ring,
 * noted as gone. An unknown peer, this
 * process itself and a peer already OFFLINE and gone leave the view as it is.
 */
export function markPeerGone(view: MemberView, peer: string): MemberView {
  if (peer === view.id) return view;
  const known = view.peers.find((p) => p.id === peer);
  if (known === undefined) return view;
  const onRing = view.lastRing.includes(peer) && !view.gone.includes(peer);
  if (known.state === 'OFFLINE' && !onRing) return view;
  return {
    ...view,
    peers: view.peers.map((p) => (p.id === peer ? { ...p, state: 'OFFLINE' as const, knowsMe: false } : p)),
    gone: onRing ? [...view.gone, peer].sort() : view.gone,
  };
}

/** Whether a table row about `id` at `incarnation` only relays a process this one knows to be gone. */
export function relaysGone(view: Pick<MemberView, 'gone' | 'peers'>, id: string, incarnation: number): boolean {
  if (!view.gone.includes(id)) return false;
  const known = view.peers.find((p) => p.id === id);
  return known !== undefined && known.state === 'OFFLINE' && known.incarnation === incarnation;
}

/**
 * `lastRing` and `gone` after a step from `before` to the state and ring it
 * ended in: a new ring (entering WORKING) replaces the last one and clears
 * `gone`; losing contact (OFFLINE) or starting over (JOINING) forgets both, so
 * a process cut off can never own by a stale ring; otherwise both carry on.
 */
export function carryRing(
  before: Pick<MemberView, 'lastRing' | 'gone'>,
  after: { state: AptaState; ring: readonly string[]; gone: readonly string[] },
  enteredWorking: boolean,
): { lastRing: readonly string[]; gone: readonly string[] } {
  if (enteredWorking) return { lastRing: after.ring, gone: [] };
  if (!INTERIM_STATES.includes(after.state)) return { lastRing: [], gone: [] };
  return { lastRing: before.lastRing, gone: after.gone };
}

/**
 * The members to own tasks by, or undefined when this process must own
 * nothing new: the agreed ring while WORKING, without the members gone since;
 * in SILENCE after a member of the last ring died, that ring without the gone
 * members (the interim ring); otherwise undefined. Every survivor that saw the
 * same deaths builds the same interim ring, so they agree on the dead
 * member's successors without talking.
 */
export function aptaOwnershipRing(view: MemberView): readonly string[] | undefined {
  if (view.state === 'WORKING') return view.gone.length === 0 ? view.ring : without(view.ring, view.gone);
  if (view.state === 'SILENCE' && view.gone.length > 0) return without(view.lastRing, view.gone);
  return undefined;
}

const without = (ring: readonly string[], gone: readonly string[]) => ring.filter((m) => !gone.includes(m));
