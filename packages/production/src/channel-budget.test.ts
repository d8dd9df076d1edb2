import type { HeraldConfig } from '@herald/core/config';
import { HashRing } from '@herald/core/ring';
import { noopLogger, type Delivery, type DeliveryGateway, type DeliveryResult } from '@herald/core/ports';
import type { ClusterMembership } from '@herald/interface';
import { PacedDeliveryGateway } from '@herald/executor';
import { shareChannelBudget } from './channel-budget';
import type { ClusterRing } from './cluster-ring';

class AcceptingChannel implements DeliveryGateway {
  async deliver(_delivery: Delivery): Promise<DeliveryResult> {
    return { rejected: [] };
  }
  async close(): Promise<void> {}
}

/** The parts of a production config the share reads: the topology's executors and the report interval. */
const config = {
  production: { topology: { executors: [{ id: 'executor-1' }, { id: 'executor-2' }, { id: 'executor-3' }] } },
  load: { reportIntervalMs: 60_000 },
} as unknown as HeraldConfig;

function ringSeeing(membership: ClusterMembership): ClusterRing {
  return { membership: () => membership } as unknown as ClusterRing;
}

describe('shareChannelBudget', () => {
  let gateway: PacedDeliveryGateway;
  beforeEach(() => {
    gateway = new PacedDeliveryGateway(new AcceptingChannel(), {
      channel: 'webhook',
      pacing: {
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
      },
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
    const membership: ClusterMembership = {
      apta: false,
      self: undefined,
      ring: new HashRing(['scheduler-1']),
      members: [{ id: 'scheduler-1', state: 'WORKING', takesWork: true }],
    };
    const share = shareChannelBudget(config, gateway, ringSeeing(membership), noopLogger);
    share.stop();
    expect(gateway.limits()).toMatchObject({ rate: 10_000, senders: 3 });
  });
});
