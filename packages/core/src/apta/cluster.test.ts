import { seededRandom } from '../random';
import { compileAptaConfig, type AptaConfig } from './config';
import type { AptaMessage } from './messages';
import type { AptaState } from './states';
import { aptaStep, type AptaStepResult } from './step';
import { createMemberView, aptaPeer, type MemberView } from './view';

/** Test timers in the production ratios (1 s / 4 s / 12 s), ten times shorter. */
const config = compileAptaConfig({ helloIntervalMs: 100, deadIntervalMs: 400, silencePeriodMs: 1200 });

interface Proc {
  view: MemberView;
  running: boolean;
  /** Every state entered, with its time. */
  history: { at: number; state: AptaState }[];
}

interface NetworkOptions {
  apta?: AptaConfig;
  latencyMs?: number;
  /** Extra random latency in [0, jitterMs): messages overtake each other. */
  jitterMs?: number;
  /** Probability that a message is lost. */
  loss?: number;
  seed?: number;
  tickMs?: number;
}

/**
 * A deterministic network in memory: every process's actions are delivered
 * to the others `latencyMs` later (plus seeded jitter, minus seeded losses);
 * a fake clock ticks every process every `tickMs`. Links can be cut; a
 * killed process neither sends nor receives.
 */
class Network {
  readonly procs = new Map<string, Proc>();
  now = 0;
  private queue: { at: number; from: string; to: string; message: AptaMessage }[] = [];
  private cut = new Set<string>();
  private readonly apta: AptaConfig;
  private readonly latencyMs: number;
  private readonly jitterMs: number;
  private readonly loss: number;
  private readonly tickMs: number;
  private readonly random: () => number;

  constructor(ids: string[], options: NetworkOptions = {}) {
    this.apta = options.apta ?? config;
    this.latencyMs = options.latencyMs ?? 5;
    this.jitterMs = options.jitterMs ?? 0;
    this.loss = options.loss ?? 0;
    this.tickMs = options.tickMs ?? 10;
    this.random = seededRandom(options.seed ?? 1);
    for (const id of ids) this.start(id);
  }

  start(id: string, incarnation = this.now): void {
    const view = createMemberView({ id, now: this.now, config: this.apta, incarnation });
    this.procs.set(id, { view, running: true, history: [{ at: this.now, state: view.state }] });
  }

  kill(id: string): void {
    this.procs.get(id)!.running = false;
  }

  /** Cuts every link between the groups, both ways. */
  partition(a: string[], b: string[]): void {
    for (const x of a) for (const y of b) this.cut.add(`${x}>${y}`).add(`${y}>${x}`);
  }

  heal(): void {
    this.cut.clear();
  }

  state(id: string): AptaState {
    return this.procs.get(id)!.view.state;
  }

  ring(id: string): readonly string[] {
    return this.procs.get(id)!.view.ring;
  }

  /**
   * The states `id` went through after `since`, a restarted silence (an LSR
   * while SILENCE) counted once: SILENCE, SILENCE, WORKING reads SILENCE, WORKING.
   */
  statesSince(id: string, since: number): AptaState[] {
    const states: AptaState[] = [];
    for (const h of this.procs.get(id)!.history)
      if (h.at > since && states[states.length - 1] !== h.state) states.push(h.state);
    return states;
  }

  run(ms: number): void {
    const end = this.now + ms;
    while (this.now < end) this.advance();
  }

  /** Runs until `done` holds; returns the time it took. Fails after `limitMs`. */
  runUntil(done: () => boolean, limitMs = 20_000): number {
    const start = this.now;
    while (!done()) {
      if (this.now - start > limitMs) throw new Error(`not reached in ${limitMs} ms: ${this.describe()}`);
      this.advance();
    }
    return this.now - start;
  }

  describe(): string {
    return [...this.procs].map(([id, p]) => `${id}:${p.view.state}[${p.view.ring.join(',')}]`).join(' ');
  }

  private advance(): void {
    this.now += this.tickMs;
    while (this.queue.length > 0 && this.queue[0]!.at <= this.now) {
      const { at, from, to, message } = this.queue.shift()!;
      const target = this.procs.get(to);
      if (target?.running && this.procs.get(from)?.running && !this.cut.has(`${from}>${to}`))
        this.apply(to, aptaStep(target.view, { kind: 'received', now: at, message }));
    }
    for (const [id, p] of this.procs) if (p.running) this.apply(id, aptaStep(p.view, { kind: 'tick', now: this.now }));
  }

  private apply(id: string, result: AptaStepResult): void {
    const p = this.procs.get(id)!;
    p.view = result.view;
    const at = result.view.now + this.latencyMs;
    for (const action of result.actions) {
      if (action.type === 'stateChanged') p.history.push({ at: result.view.now, state: action.to });
      else if (action.type === 'broadcast') {
        for (const to of this.procs.keys()) if (to !== id) this.send(id, to, action.message, at);
      } else if (action.type === 'send') this.send(id, action.to, action.message, at);
    }
  }

  private send(from: string, to: string, message: AptaMessage, sentAt: number): void {
    if (this.cut.has(`${from}>${to}`) || (this.loss > 0 && this.random() < this.loss)) return;
    const at = sentAt + Math.floor(this.random() * this.jitterMs);
    let i = this.queue.length;
    while (i > 0 && this.queue[i - 1]!.at > at) i--;
    this.queue.splice(i, 0, { at, from, to, message });
  }
}

const all = (net: Network, ids: string[], state: AptaState, ring: string[]) => () =>
  ids.every((id) => net.state(id) === state && net.ring(id).join() === ring.join());

/** True when `states` contains `expected` in order (other states may come between). */
function inOrder(states: AptaState[], expected: AptaState[]): boolean {
  let i = 0;
  for (const s of states) if (s === expected[i]) i++;
  return i === expected.length;
}

describe('APTA in a simulated cluster', () => {
  const three = ['s1', 's2', 's3'];

  function workingCluster(ids: string[]): Network {
    const net = new Network(ids);
    net.runUntil(all(net, ids, 'WORKING', ids));
    net.run(1000); // settled: nothing left in flight
    return net;
  }

  it('goes from all JOINING to all WORKING on the same ring, through ONLINE and SILENCE', () => {
    const net = new Network(three);
    const took = net.runUntil(all(net, three, 'WORKING', three));
    // A Hello later every process has heard that the others are WORKING too.
    net.run(config.helloIntervalMs);
    for (const id of three) {
      expect([id, net.statesSince(id, -1)]).toEqual([id, ['JOINING', 'ONLINE', 'SILENCE', 'WORKING']]);
      expect(net.procs.get(id)!.view.peers.map((p) => [p.id, p.state])).toEqual(
        three.filter((x) => x !== id).map((x) => [x, 'WORKING']),
      );
    }
    // A Hello round trip or two to be known, one LSR exchange, then one silence period.
    expect(took).toBeGreaterThanOrEqual(config.silencePeriodMs);
    expect(took).toBeLessThan(config.silencePeriodMs + 200);
    // And it stays there.
    net.run(5000);
    for (const id of three) expect(net.statesSince(id, -1)).toEqual(['JOINING', 'ONLINE', 'SILENCE', 'WORKING']);
  });

  it('a process that stops (killed) is marked OFFLINE by the others, who re-converge to WORKING via SILENCE without it', () => {
    const net = workingCluster(three);
    const killedAt = net.now;
    net.kill('s3');
    const took = net.runUntil(all(net, ['s1', 's2'], 'WORKING', ['s1', 's2']));
    for (const id of ['s1', 's2']) {
      expect(aptaPeer(net.procs.get(id)!.view, 's3')!.state).toBe('OFFLINE');
      expect([id, net.statesSince(id, killedAt)]).toEqual([id, ['SILENCE', 'WORKING']]);
    }
    // Dead interval to notice, an LSR round trip, then the silence period.
    expect(took).toBeLessThanOrEqual(config.deadIntervalMs + config.silencePeriodMs + 100);
  });

  it('a process cut off from everyone goes OFFLINE itself; healed, it rejoins through JOINING, ONLINE and SILENCE', () => {
    const net = workingCluster(three);
    const cutAt = net.now;
    net.partition(['s3'], ['s1', 's2']);
    net.runUntil(() => net.state('s3') === 'OFFLINE' && all(net, ['s1', 's2'], 'WORKING', ['s1', 's2'])());
    expect(net.statesSince('s3', cutAt)).toEqual(['OFFLINE']);
    expect(net.procs.get('s3')!.history.find((h) => h.state === 'OFFLINE')!.at - cutAt).toBeLessThanOrEqual(
      config.deadIntervalMs + 20,
    );
    expect(net.ring('s3')).toEqual([]);
    // It stays OFFLINE as long as it hears nobody: it never founds a cluster of its own.
    net.run(10_000);
    expect(net.statesSince('s3', cutAt)).toEqual(['OFFLINE']);

    const healedAt = net.now;
    net.heal();
    net.runUntil(all(net, three, 'WORKING', three));
    expect(net.statesSince('s3', healedAt)).toEqual(['JOINING', 'ONLINE', 'SILENCE', 'WORKING']);
    for (const id of ['s1', 's2']) expect([id, net.statesSince(id, healedAt)]).toEqual([id, ['SILENCE', 'WORKING']]);
  });

  it('has no quorum: a 2-of-5 side keeps working on its own ring; healed, all five merge into one ring', () => {
    const five = ['s1', 's2', 's3', 's4', 's5'];
    const net = workingCluster(five);
    const cutAt = net.now;
    net.partition(['s1', 's2'], ['s3', 's4', 's5']);
    net.runUntil(
      () =>
        all(net, ['s1', 's2'], 'WORKING', ['s1', 's2'])() &&
        all(net, ['s3', 's4', 's5'], 'WORKING', ['s3', 's4', 's5'])(),
    );
    for (const id of five) expect([id, net.statesSince(id, cutAt)]).toEqual([id, ['SILENCE', 'WORKING']]);
    net.run(5000);
    expect(all(net, ['s1', 's2'], 'WORKING', ['s1', 's2'])()).toBe(true);

    const healedAt = net.now;
    net.heal();
    net.runUntil(all(net, five, 'WORKING', five));
    for (const id of five) {
      expect(net.statesSince(id, healedAt)).not.toContain('OFFLINE');
      expect(inOrder(net.statesSince(id, healedAt), ['SILENCE', 'WORKING'])).toBe(true);
    }
  });

  it('a process that reaches any one member stays in the cluster: a cut link between two members changes nothing', () => {
    const net = workingCluster(three);
    const cutAt = net.now;
    net.partition(['s1'], ['s3']); // s1 and s3 still hear of each other through s2
    net.run(10_000);
    for (const id of three) {
      expect([id, net.statesSince(id, cutAt)]).toEqual([id, []]);
      expect(net.ring(id)).toEqual(three);
    }
  });

  it('a killed process restarted (new incarnation) rejoins and the ring comes back whole', () => {
    const net = workingCluster(three);
    net.kill('s2');
    net.run(100); // killed, then restarted before anyone noticed
    const restartedAt = net.now;
    net.start('s2', restartedAt);
    net.runUntil(all(net, three, 'WORKING', three));
    expect(net.statesSince('s2', restartedAt - 1)).toEqual(['JOINING', 'ONLINE', 'SILENCE', 'WORKING']);
    for (const id of ['s1', 's3']) expect(aptaPeer(net.procs.get(id)!.view, 's2')!.incarnation).toBe(restartedAt);
  });

  it('a process started later joins a working cluster, which goes through SILENCE once', () => {
    const net = workingCluster(['s1', 's2']);
    const joinedAt = net.now;
    net.start('s3');
    net.runUntil(all(net, three, 'WORKING', three));
    expect(net.statesSince('s3', joinedAt - 1)).toEqual(['JOINING', 'ONLINE', 'SILENCE', 'WORKING']);
    for (const id of ['s1', 's2']) expect([id, net.statesSince(id, joinedAt)]).toEqual([id, ['SILENCE', 'WORKING']]);
  });

  it('an interface process (takesWork: false) follows the membership without taking a share of the ring', () => {
    const net = new Network(['s1', 's2']);
    const api = createMemberView({ id: 'api-1', now: 0, config, takesWork: false });
    net.procs.set('api-1', { view: api, running: true, history: [{ at: 0, state: 'JOINING' }] });
    net.runUntil(all(net, ['s1', 's2', 'api-1'], 'WORKING', ['s1', 's2']));
    net.run(1000);
    // With three in the membership, a scheduler that loses its only fellow scheduler is not left alone.
    const killedAt = net.now;
    net.kill('s2');
    net.runUntil(all(net, ['s1', 'api-1'], 'WORKING', ['s1']));
    expect(net.statesSince('s1', killedAt)).toEqual(['SILENCE', 'WORKING']);
  });

  it.each([1, 2, 3, 4, 5])(
    'converges on a lossy network that reorders messages (seed %i): starts, loses a member, takes it back',
    (seed) => {
      const net = new Network(three, { loss: 0.1, jitterMs: 30, seed });
      net.runUntil(all(net, three, 'WORKING', three));
      net.kill('s3');
      net.runUntil(all(net, ['s1', 's2'], 'WORKING', ['s1', 's2']));
      net.start('s3', net.now);
      net.runUntil(all(net, three, 'WORKING', three));
      // Then it holds still: 10% loss alone never costs a member (4 Hellos lost in a row is 1 in 10^4, and heartbeats also travel in others' tables).
      const settledAt = net.now;
      net.run(30_000);
      for (const id of three) expect([id, net.statesSince(id, settledAt)]).toEqual([id, []]);
    },
  );
});
