import { ErrorCodes, HeraldError, ValidationError } from '../errors';
import {
  checkAptaMessage,
  type AptaMessage,
  type AptaHello,
  type AptaHelloReply,
  type AptaLsrReply,
  type AptaLsrRequest,
  type AptaTableEntry,
} from './messages';
import { APTA_ALLOCATION_STATES, aptaMachine, type AptaEvent, type AptaState } from './states';
import type { AptaLsrRound, MemberView, AptaPeerEntry } from './view';
import { carryRing, checkPeerGone, markPeerGone, relaysGone, type AptaPeerGoneInput } from './gone';

/**
 * What happens to a process: time passes, a message arrives, or the wiring
 * saw a peer's process die (gone.ts). `now` is the injected clock, ms.
 */
export type AptaInput =
  { kind: 'tick'; now: number } | { kind: 'received'; now: number; message: AptaMessage } | AptaPeerGoneInput;

/**
 * What the caller must do after a step, in order. The module sends nothing
 * itself: the wiring encodes each message and puts it on the wire.
 *
 *   broadcast    a Hello to every process the wiring can address (the
 *                configured topology and every id in view.peers)
 *   send         a hello.reply, lsr.request or lsr.reply to one process
 *   stateChanged this process moved (from, to, and the machine event)
 *   ringChanged  view.ring changed: re-read ownership (an empty ring: own nothing)
 */
export type AptaAction =
  | { type: 'broadcast'; message: AptaHello }
  | { type: 'send'; to: string; message: AptaHelloReply | AptaLsrRequest | AptaLsrReply }
  | { type: 'stateChanged'; from: AptaState; to: AptaState; event: AptaEvent }
  | { type: 'ringChanged'; members: readonly string[] };

export interface AptaStepResult {
  view: MemberView;
  actions: AptaAction[];
}

type Outgoing =
  { to: string; kind: 'hello.reply' } | { to: string; kind: 'lsr.request' | 'lsr.reply'; requestId: number };

/** Mutable working copy of a view, for the length of one step. */
interface Draft {
  state: AptaState;
  since: number;
  seq: number;
  nextHelloAt: number;
  lastContactAt: number;
  peers: Map<string, AptaPeerEntry>;
  sync: AptaLsrRound | null;
  nextRequestId: number;
  ring: readonly string[];
  announcedAt: number | null;
}

/** Bound on transitions in one step; the longest chain is two, so reaching it means a bug. */
const MAX_MOVES = 4;
const MEMBER_STATES: readonly AptaState[] = ['ONLINE', 'SILENCE', 'WORKING'];
const alive = (p: AptaPeerEntry) => p.state !== 'OFFLINE';
const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i]);
/** Heartbeat order: incarnation first, then seq. */
const compareHeartbeat = (a: { incarnation: number; seq: number }, b: { incarnation: number; seq: number }) =>
  a.incarnation - b.incarnation || a.seq - b.seq;

/**
 * Whether this step's moves end in a state peers have not heard yet, so a
 * Hello goes out at once. A silence restarted by an LSR (SILENCE -> SILENCE)
 * does not: the advertised state is unchanged, and in a change every member
 * receives about n LSR requests, so a Hello per restart cost n^2 broadcasts
 * of n messages each, plus their replies (about 4 n^3 messages per change,
 * 3 x 10^7 at 200 members). The periodic Hello still carries the heartbeat.
 */
function announcesNewState(actions: readonly AptaAction[]): boolean {
  return actions.some((a) => a.type === 'stateChanged' && a.from !== a.to);
}

/**
 * One step of one process's membership: `aptaStep(view, input) -> { view, actions }`.
 * Pure: no timers, no I/O, no clock but `input.now`. The wiring calls it for
 * every APTA message received and on a timer (any period; `aptaNextTickAt` says
 * when something is next due), then performs the actions.
 *
 * Throws ValidationError for a malformed input (the view is then unchanged:
 * count the message and drop it). A time earlier than the view's is taken as
 * the view's (a clock stepping back never rewinds timers).
 */
export function aptaStep(before: MemberView, input: AptaInput): AptaStepResult {
  if (
    input === null ||
    typeof input !== 'object' ||
    (input.kind !== 'tick' && input.kind !== 'received' && input.kind !== 'peerGone')
  ) {
    throw new ValidationError("APTA input must be { kind: 'tick' | 'received' | 'peerGone', now, ... }");
  }
  if (!Number.isFinite(input.now) || input.now < 0)
    throw new ValidationError('now must be a non-negative number of ms', { now: input.now });
  const message = input.kind === 'received' ? checkAptaMessage(input.message) : undefined;
  if (input.kind === 'peerGone') checkPeerGone(input);
  // A peer gone is marked first; the rest of the step is a tick's (announce, transitions, Hellos).
  const view = input.kind === 'peerGone' ? markPeerGone(before, input.peer) : before;
  const now = Math.max(view.now, input.now);
  const { config } = view;
  const d: Draft = {
    state: view.state,
    since: view.since,
    seq: view.seq,
    nextHelloAt: view.nextHelloAt,
    lastContactAt: view.lastContactAt,
    peers: new Map(view.peers.map((p) => [p.id, p])),
    sync: view.sync,
    nextRequestId: view.nextRequestId,
    ring: view.ring,
    announcedAt: view.announcedAt,
  };
  const actions: AptaAction[] = [];
  const outgoing: Outgoing[] = [];

  const livePeers = () => [...d.peers.values()].filter(alive);
  const knowsMe = (table: readonly AptaTableEntry[]) =>
    table.some((e) => e.id === view.id && e.incarnation === view.incarnation);
  const allocationSet = () => {
    const ids = [...d.peers.values()]
      .filter((p) => p.takesWork && APTA_ALLOCATION_STATES.includes(p.state))
      .map((p) => p.id);
    if (view.takesWork) ids.push(view.id);
    return ids.sort();
  };

  // 1. What arrived: merge the sender and its table, note what to answer.
  let heard = false;
  let lsr = false;
  if (message !== undefined && message.from !== view.id) {
    heard = true;
    d.lastContactAt = now;
    const known = d.peers.get(message.from);
    if (known === undefined || compareHeartbeat(message, known) >= 0) {
      d.peers.set(message.from, {
        id: message.from,
        incarnation: message.incarnation,
        seq: message.seq,
        state: message.state,
        takesWork: message.takesWork,
        lastHeardAt: now,
        knowsMe: knowsMe(message.table),
      });
    } else if (message.incarnation === known.incarnation) {
      d.peers.set(message.from, { ...known, lastHeardAt: now }); // reordered, but alive
    }
    for (const entry of message.table) {
      if (entry.id === view.id || entry.id === message.from || relaysGone(view, entry.id, entry.incarnation)) continue;
      const was = d.peers.get(entry.id);
      if (was !== undefined && compareHeartbeat(entry, was) <= 0) continue;
      const keepsKnowsMe = was !== undefined && alive(was) && was.incarnation === entry.incarnation && was.knowsMe;
      d.peers.set(entry.id, {
        id: entry.id,
        incarnation: entry.incarnation,
        seq: entry.seq,
        state: entry.state,
        takesWork: entry.takesWork,
        lastHeardAt: now,
        knowsMe: keepsKnowsMe,
      });
    }
    switch (message.kind) {
      case 'hello':
        outgoing.push({ to: message.from, kind: 'hello.reply' });
        break;
      case 'hello.reply':
        break;
      case 'lsr.request':
        outgoing.push({ to: message.from, kind: 'lsr.reply', requestId: message.requestId });
        lsr = true;
        break;
      case 'lsr.reply':
        lsr = true;
        if (d.sync !== null && message.requestId === d.sync.requestId && !d.sync.replied.includes(message.from)) {
          d.sync = { ...d.sync, replied: [...d.sync.replied, message.from] };
        }
        break;
    }
  }

  // 2. Peers whose heartbeat stopped advancing are OFFLINE here.
  for (const p of d.peers.values()) {
    if (alive(p) && now - p.lastHeardAt >= config.deadIntervalMs)
      d.peers.set(p.id, { ...p, state: 'OFFLINE', knowsMe: false });
  }

  // 3. Transitions.
  const requestMissing = () => {
    if (d.sync === null) return;
    const fresh = livePeers().filter((p) => !d.sync!.requested.includes(p.id));
    for (const p of fresh) outgoing.push({ to: p.id, kind: 'lsr.request', requestId: d.sync.requestId });
    if (fresh.length > 0) d.sync = { ...d.sync, requested: [...d.sync.requested, ...fresh.map((p) => p.id)] };
  };
  const move = (event: AptaEvent) => {
    const from = d.state;
    const to = aptaMachine.next(from, event);
    actions.push({ type: 'stateChanged', from, to, event });
    d.state = to;
    d.since = now;
    d.sync = to === 'ONLINE' ? { requestId: d.nextRequestId++, sentAt: now, requested: [], replied: [] } : null;
    d.ring = to === 'WORKING' ? allocationSet() : [];
    d.announcedAt = null;
    if (to === 'ONLINE') requestMissing();
  };
  const accepted = () => {
    const live = livePeers();
    const members = live.filter((p) => MEMBER_STATES.includes(p.state));
    if (members.length > 0) return members.every((p) => p.knowsMe);
    if (live.length > 0) return live.every((p) => p.knowsMe); // founders, all JOINING together
    return d.peers.size === 0 && now - d.since >= config.joinTimeoutMs; // nobody out there: found a cluster
  };
  const due = (): AptaEvent | undefined => {
    if (d.state === 'OFFLINE') return heard ? 'contact' : undefined;
    if (d.peers.size > 0 && now - d.lastContactAt >= config.deadIntervalMs) return 'lostContact';
    switch (d.state) {
      case 'JOINING':
        return accepted() ? 'accepted' : undefined;
      case 'ONLINE':
        return livePeers().every((p) => d.sync!.replied.includes(p.id)) ? 'synced' : undefined;
      case 'SILENCE':
        return now - d.since >= config.silencePeriodMs ? 'silenceElapsed' : undefined;
      default:
        return undefined;
    }
  };
  if (d.state === 'ONLINE') requestMissing(); // peers that appeared while ONLINE
  if (lsr && (d.state === 'SILENCE' || d.state === 'WORKING')) move('lsr');
  // Chains are short: JOINING -> ONLINE -> SILENCE (a process alone), OFFLINE -> JOINING -> ONLINE.
  for (let moves = 0; ; moves++) {
    const event = due();
    if (event === undefined) break;
    if (moves === MAX_MOVES)
      throw new HeraldError(ErrorCodes.INTERNAL, `apta: no fixed point after ${MAX_MOVES} transitions`, {
        details: { state: d.state, event },
      });
    move(event);
  }

  // 4. Upkeep of the state we ended in.
  if (d.state === 'ONLINE' && d.sync !== null && now - d.sync.sentAt >= config.lsrRetransmitMs) {
    const { requestId, replied } = d.sync;
    for (const p of livePeers())
      if (!replied.includes(p.id)) outgoing.push({ to: p.id, kind: 'lsr.request', requestId });
    d.sync = { ...d.sync, sentAt: now };
  }
  if (d.state === 'WORKING') {
    // The live membership no longer matches the ring (a member died or restarted, a partition healed, a member's
    // SILENCE was not heard in time): tell everyone by LSR, again every lsrRetransmitMs until an LSR arrives here.
    if (sameList(allocationSet(), d.ring)) d.announcedAt = null;
    else if (d.announcedAt === null || now - d.announcedAt >= config.lsrRetransmitMs) {
      const requestId = d.nextRequestId++;
      for (const p of livePeers()) outgoing.push({ to: p.id, kind: 'lsr.request', requestId });
      d.announcedAt = now;
    }
  }

  // 5. Messages, built once from the final state.
  if (announcesNewState(actions) || now >= d.nextHelloAt) {
    d.seq++;
    d.nextHelloAt = now + config.helloIntervalMs;
  }
  const table: AptaTableEntry[] = [...d.peers.values()]
    .filter(alive)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((p) => ({ id: p.id, incarnation: p.incarnation, seq: p.seq, state: p.state, takesWork: p.takesWork }));
  const advert = {
    from: view.id,
    incarnation: view.incarnation,
    seq: d.seq,
    state: d.state,
    takesWork: view.takesWork,
    table,
  };
  if (d.seq !== view.seq) actions.push({ type: 'broadcast', message: { kind: 'hello', ...advert } });
  for (const o of outgoing) {
    const message =
      o.kind === 'hello.reply' ? { kind: o.kind, ...advert } : { kind: o.kind, requestId: o.requestId, ...advert };
    actions.push({ type: 'send', to: o.to, message });
  }
  if (!sameList(view.ring, d.ring)) actions.push({ type: 'ringChanged', members: d.ring });
  const enteredWorking = actions.some((a) => a.type === 'stateChanged' && a.to === 'WORKING');
  const carried = carryRing(view, { state: d.state, ring: d.ring, gone: view.gone }, enteredWorking);

  return {
    view: {
      ...view,
      state: d.state,
      since: d.since,
      now,
      seq: d.seq,
      nextHelloAt: d.nextHelloAt,
      lastContactAt: d.lastContactAt,
      peers: [...d.peers.values()].sort((a, b) => (a.id < b.id ? -1 : 1)),
      sync: d.sync,
      nextRequestId: d.nextRequestId,
      ring: d.ring,
      announcedAt: d.announcedAt,
      ...carried,
    },
    actions,
  };
}

/**
 * The earliest time at which a tick would do something (a Hello, a peer's or
 * this process's dead interval, the silence end, a join timeout, an LSR
 * retransmit or re-announcement), so the wiring can arm one timer instead of polling.
 */
export function aptaNextTickAt(view: MemberView): number {
  const { config } = view;
  const times = [view.nextHelloAt];
  for (const p of view.peers) if (alive(p)) times.push(p.lastHeardAt + config.deadIntervalMs);
  if (view.state !== 'OFFLINE' && view.peers.length > 0) times.push(view.lastContactAt + config.deadIntervalMs);
  if (view.state === 'JOINING' && view.peers.length === 0) times.push(view.since + config.joinTimeoutMs);
  if (view.state === 'SILENCE') times.push(view.since + config.silencePeriodMs);
  if (view.state === 'ONLINE' && view.sync !== null) times.push(view.sync.sentAt + config.lsrRetransmitMs);
  if (view.state === 'WORKING' && view.announcedAt !== null) times.push(view.announcedAt + config.lsrRetransmitMs);
  return Math.min(...times);
}
