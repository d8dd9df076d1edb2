import type { HeraldConfig } from '@herald/core/config';
import { HashRing } from '@herald/core/ring';
import { noopLogger, type Delivery, type DeliveryGateway, type DeliveryResult } from '@herald/core/ports';
import type { ClusterMembership } from '@herald/interface';
import { PacedDeliveryGateway } from '@herald/executor';
import { DEMAND_FLOOR, IDLE_TELL_MS, shareChannelBudget, type DemandLinks } from './channel-budget';
import type { ClusterRing } from './cluster-ring';

class AcceptingChannel implements DeliveryGateway {
  async deliver(_delivery: Delivery): Promise<DeliveryResult> {
    return { rejected: [] };
  }
  async close(): Promise<void> {}
}

/** A channel whose sends wait until released: its batches stay waiting, the executor's demand. */
class BlockedChannel implements DeliveryGateway {
  private open = false;
  private readonly waiting: (() => void)[] = [];
  async deliver(_delivery: Delivery): Promise<DeliveryResult> {
    if (!this.open) await new Promise<void>((resolve) => this.waiting.push(resolve));
    return { rejected: [] };
  }
  release(): void {
    this.open = true;
    for (const resolve of this.waiting.splice(0)) resolve();
  }
  async close(): Promise<void> {}
}

/** The parts of a production config the share reads: the topology's executors and the report interval. */
const config = {
  production: { topology: { executors: [{ id: 'executor-1' }, { id: 'executor-2' }, { id: 'executor-3' }] } },
  load: { reportIntervalMs: 60_000 },
} as unknown as HeraldConfig;

const PACING = {
  initialRate: 30_000,
  minRate: 300,
  maxRate: 30_000,
  increasePerSecond: 0,
  decreaseFactor: 0.5,
  burstMs: 100,
  cutSpacingMs: 0,
  throttleDelayMs: 20,
  latencyFloorMs: 10_000,
  latencyRiseFactor: 2,
  failureThreshold: 2,
  failureDelayMs: 1,
  openMs: 30,
};

function ringSeeing(membership: ClusterMembership): ClusterRing {
  return { membership: () => membership } as unknown as ClusterRing;
}

/** A cluster without APTA: the topology's executors are the senders. */
function withoutApta(): ClusterMembership {
  return {
    apta: false,
    self: undefined,
    ring: new HashRing(['scheduler-1']),
    members: [{ id: 'scheduler-1', state: 'WORKING', takesWork: true }],
  };
}

/** executor-1's relay to its peers: tells nothing, hears no demand, rate or idle peer unless told otherwise. */
function relayOf(overrides: Partial<DemandLinks>): DemandLinks {
  return {
    id: 'executor-1',
    relaying: true,
    tellDemand: () => undefined,
    demandOf: () => undefined,
    rateOf: () => undefined,
    onPeerIdle: () => () => undefined,
    ...overrides,
  };
}

describe('shareChannelBudget', () => {
  let gateway: PacedDeliveryGateway;
  beforeEach(() => {
    gateway = new PacedDeliveryGateway(new AcceptingChannel(), {
      channel: 'webhook',
      pacing: PACING,
      maxHoldMs: 1000,
    });
  });
  afterEach(() => gateway.close());

  it('with APTA, shares the budget among the executors the membership sees alive', () => {
    const membership: ClusterMembership = {
      apta: true,
      self: { id: 'executor-1', state: 'WORKING' },
      ring: new HashRing(['scheduler-1']),
      members: [
        { id: 'scheduler-1', state: 'WORKING', takesWork: true },
        { id: 'executor-1', state: 'WORKING', takesWork: false },
        { id: 'executor-2', state: 'SILENCE', takesWork: false },
        { id: 'executor-3', state: 'OFFLINE', takesWork: false },
      ],
    };
    const share = shareChannelBudget(config, gateway, ringSeeing(membership), noopLogger);
    share.stop();
    expect(gateway.limits()).toMatchObject({ maxRate: 30_000, rate: 15_000, senders: 2 });
  });

  it('without APTA, shares it among every executor of the topology', () => {
    const membership = withoutApta();
    const share = shareChannelBudget(config, gateway, ringSeeing(membership), noopLogger);
    share.stop();
    expect(gateway.limits()).toMatchObject({ rate: 10_000, senders: 3 });
  });

  it('where the executors relay, tells its demand and paces to its part by demand', async () => {
    const membership = withoutApta();
    const told: number[] = [];
    const peerDemands = new Map<string, number | undefined>([
      ['executor-2', 0],
      ['executor-3', 0],
    ]);
    const relay = relayOf({
      tellDemand: (demand) => void told.push(demand),
      demandOf: (peer) => peerDemands.get(peer),
    });
    // No work anywhere: even shares.
    shareChannelBudget(config, gateway, ringSeeing(membership), noopLogger, relay).stop();
    expect(told).toEqual([0]);
    expect(gateway.limits()).toMatchObject({ rate: 10_000, senders: 3 });
    // 1000 recipients waiting here, none at the others: nearly the whole budget, the others keeping their
    // floor; from the report after the one that told the demand (the peers shrink theirs in between).
    const blocked = new BlockedChannel();
    const busy = new PacedDeliveryGateway(blocked, { channel: 'webhook', pacing: PACING, maxHoldMs: 1000 });
    const sending = busy.deliver({ taskId: 1, uins: new Uint32Array(1000), content: { body: 'x' }, atLogin: false });
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'performance'] });
    try {
      const share = shareChannelBudget(config, busy, ringSeeing(membership), noopLogger, relay);
      expect(told).toEqual([0, 1000]);
      expect(busy.share()).toBeCloseTo(1 / 3);
      jest.advanceTimersByTime(config.load.reportIntervalMs);
      expect(busy.share()).toBeCloseTo(1 / (1 + (2 * DEMAND_FLOOR) / 3));
      // A peer not heard from counts at an even share; a fall applies at once.
      peerDemands.set('executor-3', undefined);
      jest.advanceTimersByTime(config.load.reportIntervalMs);
      expect(busy.share()).toBeCloseTo(2 / 3 / (2 / 3 + DEMAND_FLOOR / 3 + 1 / 3));
      expect(busy.limits().rate).toBeLessThanOrEqual(30_000 * busy.share());
      share.stop();
    } finally {
      jest.useRealTimers();
    }
    blocked.release();
    await sending;
    await busy.close();
  });

  it("takes the room at once when the peers' demands fall and its own has not grown", async () => {
    const membership = withoutApta();
    const peerDemands = new Map<string, number | undefined>([
      ['executor-2', 1000],
      ['executor-3', 1000],
    ]);
    const relay = relayOf({ demandOf: (peer) => peerDemands.get(peer) });
    const blocked = new BlockedChannel();
    const busy = new PacedDeliveryGateway(blocked, { channel: 'webhook', pacing: PACING, maxHoldMs: 1000 });
    const sending = busy.deliver({ taskId: 1, uins: new Uint32Array(1000), content: { body: 'x' }, atLogin: false });
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'performance'] });
    try {
      const share = shareChannelBudget(config, busy, ringSeeing(membership), noopLogger, relay);
      expect(busy.share()).toBeCloseTo(1 / 3); // all three with the same demand
      // The other two ran out of work and told 0 (each took its floor when it told it): the next report
      // takes the room they left, not the one after.
      peerDemands.set('executor-2', 0);
      peerDemands.set('executor-3', 0);
      jest.advanceTimersByTime(config.load.reportIntervalMs);
      expect(busy.share()).toBeCloseTo(1 / (1 + (2 * DEMAND_FLOOR) / 3));
      share.stop();
    } finally {
      jest.useRealTimers();
    }
    blocked.release();
    await sending;
    await busy.close();
  });

  it("takes the room when a peer tells 0, not at the next report, lifting its rate to its part of the executors' rates", async () => {
    const membership = withoutApta();
    const peerDemands = new Map<string, number>([
      ['executor-2', 1000],
      ['executor-3', 1000],
    ]);
    const told: [number, number][] = [];
    let fell: (() => void) | undefined;
    const relay = relayOf({
      tellDemand: (demand, rate) => void told.push([demand, rate]),
      demandOf: (peer) => peerDemands.get(peer),
      rateOf: () => 8000, // each peer sent 8000/s, this one 5000/s: its pacing's rate, half its third
      onPeerIdle: (listener) => {
        fell = listener;
        return () => (fell = undefined);
      },
    });
    const blocked = new BlockedChannel();
    const pacing = { ...PACING, initialRate: 15_000 };
    const busy = new PacedDeliveryGateway(blocked, { channel: 'webhook', pacing, maxHoldMs: 1000 });
    const sending = busy.deliver({ taskId: 1, uins: new Uint32Array(1000), content: { body: 'x' }, atLogin: false });
    const share = shareChannelBudget(config, busy, ringSeeing(membership), noopLogger, relay);
    expect(told).toEqual([[1000, 5000]]); // its demand, and its rate: a third of the start, nothing sent yet
    expect(busy.limits().rate).toBe(5000);
    // Both peers ran out of work and told 0: taken as the news comes.
    peerDemands.set('executor-2', 0);
    peerDemands.set('executor-3', 0);
    fell!();
    const part = 1 / (1 + (2 * DEMAND_FLOOR) / 3);
    expect(busy.share()).toBeCloseTo(part);
    // Its part of the 21,000/s the three sent together, not its 5,000 scaled to the part (14,062/s).
    expect(busy.limits().rate).toBeCloseTo(21_000 * part);
    expect(told).toHaveLength(1); // nothing told: its own demand did not change
    share.stop();
    expect(fell).toBeUndefined();
    blocked.release();
    await sending;
    await busy.close();
  });

  it('tells 0 once its last batch has been gone IDLE_TELL_MS, and takes its floor at once', async () => {
    const membership = withoutApta();
    const told: number[] = [];
    const relay = relayOf({ tellDemand: (demand) => void told.push(demand), demandOf: () => 1000 });
    const blocked = new BlockedChannel();
    const busy = new PacedDeliveryGateway(blocked, { channel: 'webhook', pacing: PACING, maxHoldMs: 1000 });
    const batch = () =>
      busy.deliver({ taskId: 1, uins: new Uint32Array(1000), content: { body: 'x' }, atLogin: false });
    const first = batch();
    jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'performance'] });
    try {
      const share = shareChannelBudget(config, busy, ringSeeing(membership), noopLogger, relay);
      expect(told).toEqual([1000]);
      blocked.release();
      await first; // nothing in hand now
      // A batch within IDLE_TELL_MS is a gap between batches, not the end of the work: nothing told.
      jest.advanceTimersByTime(IDLE_TELL_MS - 1);
      await batch();
      jest.advanceTimersByTime(IDLE_TELL_MS - 1);
      expect(told).toEqual([1000]);
      jest.advanceTimersByTime(1);
      expect(told).toEqual([1000, 0]);
      const floor = DEMAND_FLOOR / 3 / (DEMAND_FLOOR / 3 + 1);
      expect(busy.share()).toBeCloseTo(floor);
      // 0 told already: another idle before the next report tells nothing more.
      await batch();
      jest.advanceTimersByTime(IDLE_TELL_MS);
      expect(told).toEqual([1000, 0]);
      share.stop();
    } finally {
      jest.useRealTimers();
    }
    await busy.close();
  });
});
