import {
  APTA_STATES,
  allocateTasks,
  aptaNextTickAt,
  aptaOwnershipRing,
  aptaStep,
  createMemberView,
  type AptaAction,
  type AptaEvent,
  type AptaInput,
  type AptaMessage,
  type AptaState,
  type MemberView,
} from '@herald/core/apta';
import { ValidationError } from '@herald/core';
import { noopLogger, noopMeter } from '@herald/core/ports';
import type { HashRing } from '@herald/core/ring';
import { createPull } from '@herald/transport';
import { goneWatch } from './gone-watch';
import { connect, type Link } from './link';
import { compileMembershipOptions, type MembershipOptions } from './options';

/** What `onChange` listeners hear, in the order it happened within a step. */
export type MembershipChange =
  | { type: 'state'; from: AptaState; to: AptaState; event: AptaEvent }
  /**
   * The ring to own and route by changed: `ring` is undefined whenever this
   * process may own nothing new (not WORKING, and no interim ring). `interim`
   * is true for the last agreed ring without members whose process died
   * (gone.ts in core): their arcs only, the rest waits for the next ring.
   */
  | { type: 'ring'; members: readonly string[]; ring: HashRing | undefined; interim: boolean };

export type MembershipListener = (change: MembershipChange) => void;

/** One process's membership in the cluster, running: see `startMembership`. */
export interface Membership {
  readonly id: string;
  /** The endpoint the membership PULL is bound to (a wildcard port resolved). */
  readonly endpoint: string;
  /** The APTA state now. */
  readonly state: AptaState;
  /** Everything this process knows about the membership (plain data, JSON-serialisable). */
  view(): MemberView;
  /**
   * The allocation ring fixed on entering WORKING (`allocateTasks(view().ring)`),
   * without any member whose process died since (its arc goes to its
   * successors at once); in the SILENCE after such a death, the last ring
   * without it; otherwise undefined: such a process owns nothing new.
   * An interface process (takesWork false) gets the ring of the schedulers, to route by.
   */
  ring(): HashRing | undefined;
  /** Calls `listener` on every state change and ring change; returns the function that unsubscribes it. */
  onChange(listener: MembershipListener): () => void;
  /**
   * Fault injection, a test and operations hook: while isolated, every
   * membership message in and out is dropped (counted as dropped, reason
   * 'isolated'); timers keep running, so the process goes OFFLINE after
   * deadIntervalMs and rejoins through JOINING and SILENCE once `isolate(false)`.
   * For a whole process's traffic (every tier) use @herald/transport's `setTrafficCut`.
   */
  isolate(cut: boolean): void;
  readonly isolated: boolean;
  /** Stops the timer and closes every socket; the peers mark this process OFFLINE after deadIntervalMs. */
  close(): Promise<void>;
}

/** States as a gauge: 1 for the state the process is in, 0 for the others. */
const STATE_METRIC = 'herald_membership_state';
const PEER_STATE_METRIC = 'herald_membership_peer_state';
const MESSAGES_METRIC = 'herald_membership_messages_total';
const DROPPED_METRIC = 'herald_membership_dropped_total';

/**
 * Runs the APTA membership of one process over ZeroMQ (docs/apta.md): binds a
 * PULL for membership traffic, connects one PUSH per peer, feeds every message
 * received and one timer (armed at `aptaNextTickAt`) into core's `aptaStep`,
 * and performs its actions: a broadcast goes to every peer, a send to one.
 *
 * Sends never wait: a message for a peer whose queue is full (down or slow) is
 * dropped and counted, since Hellos are periodic and LSR requests retransmitted.
 * Frames that do not decode are counted by the PULL
 * (`herald_transport_malformed_frames_total{channel="<id>.membership"}`) and
 * skipped; other kinds, messages from processes not in `peers`, and table rows
 * about such processes are dropped too (a member added to one process's
 * configuration but not to the others' cannot join until it is in all of them).
 *
 * Metrics: `herald_membership_state{member,state}` (1 for the current state),
 * `herald_membership_messages_total{member,kind,direction}` (in / out),
 * `herald_membership_dropped_total{member,direction,reason}`. Every state and
 * ring change is logged at info.
 */
export async function startMembership(options: MembershipOptions): Promise<Membership> {
  const config = compileMembershipOptions(options);
  const logger = options.logger ?? noopLogger;
  const meter = options.meter ?? noopMeter;
  const { id, clock, timers } = config;
  const stateGauge = meter.gauge(
    STATE_METRIC,
    'APTA state of this process: 1 for the current state, 0 for the others',
    ['member', 'state'],
  );
  const peerGauge = meter.gauge(
    PEER_STATE_METRIC,
    'APTA state of each peer as this process last heard it (OFFLINE once its heartbeat stopped): 1 for that state, 0 for the others',
    ['member', 'peer', 'state'],
  );
  const messages = meter.counter(
    MESSAGES_METRIC,
    'APTA messages by kind and direction (in: stepped, out: handed to zeromq)',
    ['member', 'kind', 'direction'],
  );
  const dropped = meter.counter(DROPPED_METRIC, 'APTA messages dropped, by direction and reason', [
    'member',
    'direction',
    'reason',
  ]);

  const peers = new Map(config.peers.map((p) => [p.id, p]));
  const pull = await createPull({
    name: `${id}.membership`,
    endpoint: config.endpoint,
    highWaterMark: config.receiveHighWaterMark,
    meter,
    logger,
    curve: config.curve && {
      serverPublicKey: config.curve.publicKey,
      serverSecretKey: config.curve.secretKey,
      allowedClientKeys: config.curve.allowedClientKeys,
    },
  });
  let isolated = false;
  let closed = false;
  let started = false;
  const links = new Map<string, Link>();
  // A peer whose process died (connection closed, reconnect refused) is stepped as peerGone at once.
  const watch = (peer: string) =>
    goneWatch(() => {
      if (isolated || closed || !started) return; // isolated: as if no network; before start: nothing to step
      logger.warn('membership: a peer closed its connection and refuses new ones: its process is gone', {
        member: id,
        peer,
      });
      step({ kind: 'peerGone', now: clock.now(), peer });
    });
  try {
    for (const peer of config.peers) links.set(peer.id, await connect(config, peer, watch(peer.id)));
  } catch (error) {
    pull.close();
    for (const link of links.values()) link.channel.close();
    throw error;
  }

  const now = clock.now();
  let view = createMemberView({
    id,
    now,
    config: config.apta,
    takesWork: config.takesWork,
    incarnation: config.incarnation ?? Math.floor(now),
  });
  let ring: HashRing | undefined;
  let timer: unknown;
  const listeners = new Set<MembershipListener>();
  setStateGauge(view.state);

  function setStateGauge(current: AptaState): void {
    for (const state of APTA_STATES) stateGauge.set(state === current ? 1 : 0, { member: id, state });
  }

  /** Each peer's state as this process sees it, set when it changes: a peer that died cannot report its own. */
  const peerStates = new Map<string, AptaState>();
  function setPeerGauges(): void {
    for (const peer of view.peers) {
      if (peerStates.get(peer.id) === peer.state) continue;
      peerStates.set(peer.id, peer.state);
      for (const state of APTA_STATES)
        peerGauge.set(state === peer.state ? 1 : 0, { member: id, peer: peer.id, state });
    }
  }

  function drop(direction: 'in' | 'out', reason: string, fields: Record<string, unknown> = {}): void {
    dropped.inc({ member: id, direction, reason });
    logger.debug('membership: message dropped', { member: id, direction, reason, ...fields });
  }

  function emit(change: MembershipChange): void {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch (error) {
        logger.error('membership: a change listener threw', { member: id, change: change.type, error: String(error) });
      }
    }
  }

  function send(to: string, message: AptaMessage): void {
    const link = links.get(to);
    if (link === undefined) return drop('out', 'unknown_peer', { to, kind: message.kind });
    if (isolated) return drop('out', 'isolated', { to, kind: message.kind });
    if (link.inFlight >= config.maxInFlight) {
      if (!link.full)
        logger.warn('membership: a peer is not taking messages; dropping what it is sent until it does', {
          member: id,
          peer: to,
        });
      link.full = true;
      return drop('out', 'queue_full', { to, kind: message.kind });
    }
    link.inFlight += 1;
    messages.inc({ member: id, kind: message.kind, direction: 'out' });
    link.channel.send({ kind: 'apta', message }).then(
      () => {
        link.inFlight -= 1;
        link.full = false;
      },
      (error: unknown) => {
        link.inFlight -= 1;
        if (!closed) drop('out', 'send_failed', { to, kind: message.kind, error: String(error) });
      },
    );
  }

  function perform(actions: AptaAction[]): void {
    for (const action of actions) {
      switch (action.type) {
        case 'broadcast':
          for (const peer of links.keys()) send(peer, action.message);
          break;
        case 'send':
          send(action.to, action.message);
          break;
        case 'stateChanged':
          setStateGauge(action.to);
          logger.info('membership: state changed', {
            member: id,
            from: action.from,
            to: action.to,
            event: action.event,
          });
          emit({ type: 'state', from: action.from, to: action.to, event: action.event });
          break;
        case 'ringChanged':
          break; // the ring is taken from the final view below, so a WORKING process with an empty ring gets one too
      }
    }
    const members = aptaOwnershipRing(view);
    const same = members === undefined ? ring === undefined : ring !== undefined && sameList(ring.members, members);
    if (!same) {
      ring = members === undefined ? undefined : allocateTasks(members, view.config.virtualNodes);
      const interim = view.gone.length > 0;
      logger.info('membership: ring changed', { member: id, state: view.state, ring: members ?? null, interim });
      emit({ type: 'ring', members: members ?? [], ring, interim });
    }
  }

  function step(input: AptaInput): void {
    if (closed) return;
    try {
      const result = aptaStep(view, input);
      view = result.view;
      setPeerGauges();
      perform(result.actions);
    } catch (error) {
      // A decoded message already passed checkAptaMessage; anything else thrown here is a bug worth seeing.
      if (error instanceof ValidationError) drop('in', 'refused', { reason: error.message });
      else
        logger.error('membership: step failed; the view is unchanged', {
          member: id,
          input: input.kind,
          error: String(error),
        });
    }
    arm();
  }

  function arm(): void {
    if (closed) return;
    if (timer !== undefined) timers.clearTimeout(timer);
    const delay = Math.max(0, aptaNextTickAt(view) - clock.now());
    timer = timers.setTimeout(() => {
      timer = undefined;
      step({ kind: 'tick', now: clock.now() });
    }, delay);
  }

  /** Only configured peers, and only table rows about processes this one can address (or itself). */
  function admit(message: AptaMessage): AptaMessage | undefined {
    if (!peers.has(message.from)) {
      drop('in', 'unknown_peer', { from: message.from, kind: message.kind });
      return undefined;
    }
    const table = message.table.filter((row) => row.id === id || peers.has(row.id));
    if (table.length === message.table.length) return message;
    logger.debug('membership: ignored table rows about processes outside the configured peers', {
      member: id,
      from: message.from,
      ids: message.table.filter((row) => !table.includes(row)).map((row) => row.id),
    });
    return { ...message, table };
  }

  const receiving = (async () => {
    try {
      for await (const msg of pull.messages()) {
        if (closed) break;
        if (msg.kind !== 'apta') {
          drop('in', 'not_apta', { kind: msg.kind });
          continue;
        }
        if (isolated) {
          drop('in', 'isolated', { from: msg.message.from, kind: msg.message.kind });
          continue;
        }
        const message = admit(msg.message);
        if (message === undefined) continue;
        messages.inc({ member: id, kind: message.kind, direction: 'in' });
        step({ kind: 'received', now: clock.now(), message });
      }
    } catch (error) {
      if (!closed) logger.error('membership: the receive loop stopped', { member: id, error: String(error) });
    }
  })();

  started = true;
  logger.info('membership: started', {
    member: id,
    endpoint: pull.endpoint,
    takesWork: config.takesWork,
    peers: config.peers.map((p) => p.id),
    incarnation: view.incarnation,
  });
  arm();

  return {
    id,
    endpoint: pull.endpoint,
    get state() {
      return view.state;
    },
    view: () => view,
    ring: () => ring,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    isolate(cut) {
      if (cut === isolated) return;
      isolated = cut;
      logger.warn(
        cut
          ? 'membership: isolated (fault injection): dropping all membership traffic'
          : 'membership: isolation lifted',
        { member: id },
      );
    },
    get isolated() {
      return isolated;
    },
    async close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) timers.clearTimeout(timer);
      timer = undefined;
      listeners.clear();
      pull.close();
      for (const link of links.values()) link.channel.close();
      await receiving;
      logger.info('membership: closed', { member: id });
    },
  };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
