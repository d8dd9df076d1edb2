/**
 * APTA members on a simulated network and clock, for bench/apta-scale.js:
 * core's pure aptaStep driven exactly as packages/membership drives it (every
 * message received is a step; one timer per member, armed at aptaNextTickAt),
 * with no real timer or socket, so a minute of a 200-member cluster takes
 * seconds and a seed fixes every run.
 *
 * Events (a message arriving, a member's timer) sit in one heap ordered by
 * time, then by the order they were scheduled: equal seeds replay equal runs.
 * A message takes latencyMs plus a seeded [0, jitterMs); links can be cut both
 * ways; a killed member neither sends nor receives. Each member keeps an `ok`
 * flag, "WORKING with a ring equal to the expected members", updated on every
 * step, so convergence is checked in O(1) rather than by comparing 200 rings.
 */
const { aptaNextTickAt, aptaStep, createMemberView } = require('@herald/core/apta');
const { seededRandom } = require('@herald/core');

/** A binary min-heap of events by (at, seq). */
class EventHeap {
  constructor() {
    this.items = [];
  }

  get size() {
    return this.items.length;
  }

  peek() {
    return this.items[0];
  }

  push(event) {
    const items = this.items;
    items.push(event);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }

  pop() {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let least = i;
        if (l < items.length && before(items[l], items[least])) least = l;
        if (r < items.length && before(items[r], items[least])) least = r;
        if (least === i) break;
        [items[i], items[least]] = [items[least], items[i]];
        i = least;
      }
    }
    return top;
  }
}

const before = (a, b) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

class SimulatedNetwork {
  /**
   * @param {{ config: object, latencyMs?: number, jitterMs?: number, seed?: number }} options
   *   config: compiled APTA timers (compileAptaConfig)
   */
  constructor({ config, latencyMs = 5, jitterMs = 5, seed = 1 }) {
    this.config = config;
    this.latencyMs = latencyMs;
    this.jitterMs = jitterMs;
    this.random = seededRandom(seed);
    this.now = 0;
    this.members = new Map();
    this.events = new EventHeap();
    this.seq = 0;
    this.cut = new Set();
    this.expectedRing = new Map();
    this.okCount = 0;
    this.liveCount = 0;
    this.steps = 0;
    this.messages = 0;
    /** State changes since the last resetChanges(): a converged cluster that holds still has none. */
    this.changes = 0;
  }

  /** Starts a member at `at` (default now), JOINING, with a fresh incarnation; until then it hears nothing. */
  start(id, at = this.now) {
    if (at > this.now) this.events.push({ at, seq: this.seq++, kind: 'start', to: id });
    else this.startNow(id);
  }

  startNow(id) {
    if (this.members.get(id)?.running) throw new Error(`${id} is already running`);
    const member = {
      id,
      view: createMemberView({ id, now: this.now, config: this.config, incarnation: this.now }),
      running: true,
      timerAt: -1,
      ok: false,
    };
    this.members.set(id, member);
    this.liveCount++;
    this.setOk(member, this.isOk(member));
    this.arm(member, this.now - 1); // its first Hello is due at once
  }

  kill(id) {
    const member = this.members.get(id);
    if (!member.running) return;
    member.running = false;
    this.liveCount--;
    this.setOk(member, false);
  }

  /** Cuts every link between the two groups, both ways. */
  partition(a, b) {
    for (const x of a) for (const y of b) this.cut.add(`${x}>${y}`).add(`${y}>${x}`);
  }

  heal() {
    this.cut.clear();
  }

  /**
   * The ring each running member must hold to count as converged: its own
   * group, sorted (one group: the whole cluster; two: each side of a partition).
   */
  expect(...groups) {
    this.expectedRing = new Map();
    for (const group of groups) {
      const key = [...group].sort().join(',');
      for (const id of group) this.expectedRing.set(id, key);
    }
    for (const member of this.members.values()) if (member.running) this.setOk(member, this.isOk(member));
  }

  /** Every running member WORKING on the expected ring. */
  converged() {
    return this.liveCount > 0 && this.okCount === this.liveCount;
  }

  resetChanges() {
    this.changes = 0;
  }

  /** Runs events up to and including time `until`. */
  runTo(until) {
    while (this.events.size > 0 && this.events.peek().at <= until) this.handle(this.events.pop());
    this.now = Math.max(this.now, until);
  }

  /** Runs until `done()` holds after an event; returns the time then, or undefined if `limit` came first. */
  runUntil(done, limit) {
    while (!done()) {
      if (this.events.size === 0 || this.events.peek().at > limit) {
        this.now = Math.max(this.now, limit);
        return undefined;
      }
      this.handle(this.events.pop());
    }
    return this.now;
  }

  handle(event) {
    this.now = event.at;
    if (event.kind === 'start') return this.startNow(event.to);
    const member = this.members.get(event.to);
    if (!member?.running) return;
    if (event.kind === 'tick') {
      if (event.at !== member.timerAt) return; // re-armed since: only the latest timer fires
      this.step(member, { kind: 'tick', now: event.at });
    } else if (this.members.get(event.from).running && !this.cut.has(`${event.from}>${event.to}`)) {
      this.step(member, { kind: 'received', now: event.at, message: event.message });
    }
  }

  step(member, input) {
    const { view, actions } = aptaStep(member.view, input);
    member.view = view;
    this.steps++;
    const sentAt = view.now + this.latencyMs;
    for (const action of actions) {
      if (action.type === 'broadcast') {
        for (const to of this.members.keys()) if (to !== member.id) this.send(member.id, to, action.message, sentAt);
      } else if (action.type === 'send') this.send(member.id, action.to, action.message, sentAt);
      else if (action.type === 'stateChanged') this.changes++;
    }
    this.setOk(member, this.isOk(member));
    this.arm(member, view.now);
  }

  isOk(member) {
    const { view } = member;
    if (view.state !== 'WORKING') return false;
    // aptaStep hands back the same ring array while the ring is unchanged: join it once per new ring.
    if (member.ringSeen !== view.ring) [member.ringSeen, member.ringKey] = [view.ring, view.ring.join(',')];
    return member.ringKey === this.expectedRing.get(member.id);
  }

  setOk(member, ok) {
    if (member.ok !== ok) this.okCount += ok ? 1 : -1;
    member.ok = ok;
  }

  /** One timer per member, as the wiring arms it: at aptaNextTickAt, never in the past (a timer fires at least 1 ms on). */
  arm(member, now) {
    const at = Math.max(aptaNextTickAt(member.view), now + 1);
    if (at === member.timerAt) return;
    member.timerAt = at;
    this.events.push({ at, seq: this.seq++, kind: 'tick', to: member.id });
  }

  send(from, to, message, sentAt) {
    if (this.cut.has(`${from}>${to}`)) return;
    this.messages++;
    const at = sentAt + Math.floor(this.random() * this.jitterMs);
    this.events.push({ at, seq: this.seq++, kind: 'message', from, to, message });
  }
}

module.exports = { SimulatedNetwork };
