import { ValidationError } from '../errors';
import { compileAptaConfig, type AptaConfig } from './config';
import { MEMBER_ID } from './messages';
import type { AptaState } from './states';

/** One peer in this process's job-process table. */
export interface AptaPeerEntry {
  readonly id: string;
  readonly incarnation: number;
  readonly seq: number;
  /** The state it last claimed; OFFLINE once its heartbeat has not advanced for deadIntervalMs. */
  readonly state: AptaState;
  readonly takesWork: boolean;
  /** When its heartbeat last advanced here (heard directly, or in another process's table), ms. */
  readonly lastHeardAt: number;
  /** Its latest direct message listed this process, this incarnation, in its table. */
  readonly knowsMe: boolean;
}

/** The LSR exchange an ONLINE process runs: ONLINE -> SILENCE once every live peer replied. */
export interface AptaLsrRound {
  readonly requestId: number;
  /** When requests were last (re)sent to the peers that have not replied. */
  readonly sentAt: number;
  readonly requested: readonly string[];
  readonly replied: readonly string[];
}

/**
 * Everything one process knows about the membership: plain, immutable data
 * (JSON-serialisable, so a cluster-view API can show it as is). `aptaStep` takes
 * one view and returns the next; nothing else changes it.
 */
export interface MemberView {
  readonly id: string;
  /** Rises across restarts of this process (its start time by default), so peers can tell a new run from an old one. */
  readonly incarnation: number;
  /** False for a process that follows membership without owning tasks (an interface process): never on the ring. */
  readonly takesWork: boolean;
  readonly config: AptaConfig;
  readonly state: AptaState;
  /** When the current state was entered (an LSR in SILENCE re-enters it), ms. */
  readonly since: number;
  /** The latest time a step saw, ms. */
  readonly now: number;
  /** Heartbeat counter, raised by every Hello broadcast. */
  readonly seq: number;
  readonly nextHelloAt: number;
  /** When a message from any peer last arrived. */
  readonly lastContactAt: number;
  /** The job-process table, sorted by id, never this process itself. */
  readonly peers: readonly AptaPeerEntry[];
  /** The outstanding LSR exchange, while ONLINE. */
  readonly sync: AptaLsrRound | null;
  readonly nextRequestId: number;
  /**
   * The members the allocation ring is built from, sorted: fixed on entering
   * WORKING (this process and every live peer in SILENCE or WORKING that takes
   * work), empty in any other state. A membership change reaches the ring only
   * through SILENCE.
   */
  readonly ring: readonly string[];
  /** While WORKING and the live membership differs from `ring`: when LSR requests last announced it. */
  readonly announcedAt: number | null;
  /**
   * The ring last fixed on entering WORKING, kept through the SILENCE that
   * follows until the next one is fixed; empty before the first WORKING and
   * after OFFLINE. With `gone` it gives the interim ring (see gone.ts).
   */
  readonly lastRing: readonly string[];
  /**
   * Members of `lastRing` whose process the wiring reported gone (a
   * `peerGone` input: its connection closed and reconnecting is refused)
   * since `lastRing` was fixed, sorted. Their arcs go to their ring
   * successors at once; cleared when the next ring is fixed.
   */
  readonly gone: readonly string[];
}

export interface NewMemberView {
  id: string;
  /** The time now, ms (the injected clock). */
  now: number;
  /** Compiled timers; default compileAptaConfig(). */
  config?: AptaConfig;
  /** Default true. */
  takesWork?: boolean;
  /** Default `now`. Must rise across restarts of the same id. */
  incarnation?: number;
}

/** A process that just started: JOINING, knowing nobody, its first Hello due at once. */
export function createMemberView(input: NewMemberView): MemberView {
  const { id, now } = input;
  if (typeof id !== 'string' || !MEMBER_ID.test(id))
    throw new ValidationError('APTA member id must be 1-64 letters, digits, _ . -', { id });
  if (!Number.isFinite(now) || now < 0) throw new ValidationError('now must be a non-negative number of ms', { now });
  const incarnation = input.incarnation ?? Math.floor(now);
  if (!Number.isSafeInteger(incarnation) || incarnation < 0)
    throw new ValidationError('incarnation must be a non-negative integer', { incarnation });
  return {
    id,
    incarnation,
    takesWork: input.takesWork ?? true,
    config: input.config ?? compileAptaConfig(),
    state: 'JOINING',
    since: now,
    now,
    seq: 0,
    nextHelloAt: now,
    lastContactAt: now,
    peers: [],
    sync: null,
    nextRequestId: 1,
    ring: [],
    announcedAt: null,
    lastRing: [],
    gone: [],
  };
}

/** A peer of the view by id, or undefined. */
export function aptaPeer(view: Pick<MemberView, 'peers'>, id: string): AptaPeerEntry | undefined {
  return view.peers.find((p) => p.id === id);
}
