/**
 * The runtime's wiring with time in the test's hands: one process on a real
 * (inproc or tcp) socket, its clock and its one timer driven by hand.
 */
import { APTA_STATES } from '@herald/core/apta';
import type { Clock, Logger } from '@herald/core/ports';
import { freePort } from '@herald/testing';
import { inprocEndpoint } from '@herald/transport';
import { startMembership, type Membership, type MembershipChange } from './index';
import type { MembershipTimers } from './options';
import { recordingMeter } from './test-meter.test-util';

const APTA = { helloIntervalMs: 50, deadIntervalMs: 300, silencePeriodMs: 400 };

/** A clock and a timer source that only move when the test says so. The runtime arms one timer at a time. */
class ManualTime implements Clock, MembershipTimers {
  private t = 1_000;
  armed: { at: number; callback: () => void; handle: object } | undefined;

  now(): number {
    return this.t;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const handle = {};
    this.armed = { at: this.t + ms, callback, handle };
    return handle;
  }

  clearTimeout(handle: unknown): void {
    if (this.armed?.handle === handle) this.armed = undefined;
  }

  /** Moves time to the armed timer and fires it. */
  fire(): void {
    const armed = this.armed;
    if (armed === undefined) throw new Error('no timer armed');
    this.armed = undefined;
    this.t = Math.max(this.t, armed.at);
    armed.callback();
  }

  /** Fires timers until `done` holds; fails after `limit` of them. */
  fireUntil(done: () => boolean, limit = 1000): void {
    for (let i = 0; !done(); i++) {
      if (i === limit) throw new Error(`not reached after ${limit} timers`);
      this.fire();
    }
  }
}

let open: Membership[] = [];
afterEach(async () => {
  await Promise.all(open.map((m) => m.close()));
  open = [];
});

async function alone(options: { takesWork?: boolean; logger?: Logger } = {}) {
  const time = new ManualTime();
  const meter = recordingMeter();
  const membership = await startMembership({
    id: 'solo',
    endpoint: inprocEndpoint('membership-solo'),
    peers: [],
    apta: APTA,
    clock: time,
    timers: time,
    meter,
    ...options,
  });
  open.push(membership);
  const changes: MembershipChange[] = [];
  membership.onChange((change) => changes.push(change));
  return { time, meter, membership, changes };
}

describe('startMembership, time driven by hand', () => {
  it('arms its one timer at aptaNextTickAt: a process alone founds a cluster at joinTimeoutMs and works silencePeriodMs later', async () => {
    const { time, meter, membership, changes } = await alone();
    expect(membership.state).toBe('JOINING');
    expect(time.armed!.at).toBe(1_000); // the first Hello is due at once
    time.fireUntil(() => membership.state === 'SILENCE');
    expect(time.now()).toBe(1_000 + 300); // joinTimeoutMs defaults to deadIntervalMs
    expect(membership.ring()).toBeUndefined();
    time.fireUntil(() => membership.state === 'WORKING');
    expect(time.now()).toBe(1_000 + 300 + 400);
    expect(changes).toEqual([
      { type: 'state', from: 'JOINING', to: 'ONLINE', event: 'accepted' },
      { type: 'state', from: 'ONLINE', to: 'SILENCE', event: 'synced' },
      { type: 'state', from: 'SILENCE', to: 'WORKING', event: 'silenceElapsed' },
      { type: 'ring', members: ['solo'], ring: membership.ring(), interim: false },
    ]);
    expect(membership.ring()!.ownerOf(42)).toBe('solo');
    expect(membership.view()).toMatchObject({ id: 'solo', state: 'WORKING', ring: ['solo'], incarnation: 1_000 });
    for (const state of APTA_STATES) {
      expect(meter.gaugeValue('herald_membership_state', { member: 'solo', state })).toBe(state === 'WORKING' ? 1 : 0);
    }
    expect(meter.count('herald_membership_messages_total')).toBe(0); // nobody to talk to
  });

  it('gives an interface process (takesWork false) an empty ring while WORKING, and none before', async () => {
    const { time, membership, changes } = await alone({ takesWork: false });
    time.fireUntil(() => membership.state === 'WORKING');
    expect(membership.ring()!.size).toBe(0);
    expect(membership.ring()!.ownerOf(42)).toBeUndefined();
    expect(changes.filter((c) => c.type === 'ring')).toHaveLength(1);
  });

  it('keeps going when a listener throws, logs it, and stops calling an unsubscribed one', async () => {
    const errors: string[] = [];
    const logger: Logger = { debug() {}, info() {}, warn() {}, error: (message) => void errors.push(message) };
    const { time, membership, changes } = await alone({ logger });
    const heard: string[] = [];
    const unsubscribe = membership.onChange((change) => {
      heard.push(change.type);
      throw new Error('listener bug');
    });
    time.fireUntil(() => membership.state === 'SILENCE');
    unsubscribe();
    time.fireUntil(() => membership.state === 'WORKING');
    expect(heard).toEqual(['state', 'state']);
    expect(errors).toEqual(['membership: a change listener threw', 'membership: a change listener threw']);
    expect(changes).toHaveLength(4);
  });

  it('never waits on a peer that does not take messages: beyond maxInFlight they are dropped and counted', async () => {
    const time = new ManualTime();
    const meter = recordingMeter();
    const gone = `tcp://127.0.0.1:${await freePort()}`; // nothing listens there
    const membership = await startMembership({
      id: 'lonely',
      endpoint: inprocEndpoint('membership-lonely'),
      peers: [{ id: 'absent', endpoint: gone }],
      apta: APTA,
      clock: time,
      timers: time,
      meter,
      sendHighWaterMark: 1,
      maxInFlight: 2,
    });
    open.push(membership);
    for (let i = 0; i < 20; i++) {
      time.fire(); // a Hello tick: it returns at once whatever the peer does
      await new Promise<void>((resolve) => setImmediate(resolve)); // zeromq may take what it has room for
    }
    expect(membership.view().seq).toBeGreaterThanOrEqual(20);
    const dropped = meter.count('herald_membership_dropped_total', {
      member: 'lonely',
      direction: 'out',
      reason: 'queue_full',
    });
    const sent = meter.count('herald_membership_messages_total', { member: 'lonely', direction: 'out' });
    expect(sent).toBeLessThan(10); // what zeromq queued (sendHighWaterMark 1) and the 2 in flight: 3 with zeromq 6.8
    expect(dropped + sent).toBe(membership.view().seq);
  });

  it('stops its timer on close', async () => {
    const { time, membership } = await alone();
    expect(time.armed).toBeDefined();
    await membership.close();
    expect(time.armed).toBeUndefined();
    await membership.close(); // twice is fine
  });
});
