import type { HeraldConfig } from '@herald/core/config';
import { demandFraction, liveSenderIds } from '@herald/core/pacing';
import type { DeliveryGateway, Logger } from '@herald/core/ports';
import { PacedDeliveryGateway } from '@herald/executor';
import type { ChannelRelay } from './channel-relay';
import type { ClusterRing } from './cluster-ring';

/**
 * The least part of an even share an executor keeps when it has no demand:
 * work that comes to it goes at once, and its next report claims the rest.
 */
export const DEMAND_FLOOR = 0.1;

export interface ChannelBudgetShare {
  stop(): void;
}

/** What the share needs of the relay: the demands the executors tell each other. */
export type DemandLinks = Pick<ChannelRelay, 'id' | 'relaying' | 'tellDemand' | 'demandOf'>;

/**
 * Keeps an executor process's paced channel at its share of the channel's
 * budget (docs/delivery.md, "One budget per channel"): every
 * load.reportIntervalMs it counts the executors sending through the channel:
 * with APTA, those its membership sees in any state but OFFLINE (one that
 * died gives its share back to the rest once it is OFFLINE); without, every
 * executor of the topology (a static cluster: all are meant to run).
 * Where the executors relay (`relay.relaying`: a channelEndpoint each) it
 * tells the others its demand (the most recipients it had waiting on the
 * channel at once in the interval) and paces to its part by demand (core
 * `demandFraction`; a peer not heard from counts at an even share; a rise
 * from the next report on, a fall at once);
 * otherwise to 1/count. A gateway that is not paced (the file sink) is left alone.
 */
export function shareChannelBudget(
  config: HeraldConfig,
  gateway: DeliveryGateway,
  ring: ClusterRing,
  logger: Logger,
  relay?: DemandLinks,
): ChannelBudgetShare {
  if (!(gateway instanceof PacedDeliveryGateway)) return { stop: () => undefined };
  const executors = config.production!.topology.executors.map((e) => e.id);
  const liveIds = (): string[] => {
    const membership = ring.membership();
    return membership.apta ? liveSenderIds(membership.members, executors) : executors;
  };
  // The part by demand computed at the last report: a rise applies only from the report after the one that
  // told it, once the peers have heard the demand behind it and taken their own parts down (else for up to
  // an interval the parts would sum past the budget). A fall applies at once.
  let computed: number | undefined;
  const share = () => {
    try {
      const live = liveIds();
      if (relay?.relaying !== true) return gateway.shareAmong(Math.max(1, live.length));
      const own = gateway.takeDemand();
      relay.tellDemand(own);
      const peers = live.filter((id) => id !== relay.id).map((id) => relay.demandOf(id, config.load.maxReportAgeMs));
      const fraction = demandFraction(own, peers, DEMAND_FLOOR);
      const senders = peers.length + 1;
      gateway.shareByDemand(Math.min(fraction, computed ?? 1 / senders), senders);
      computed = fraction;
    } catch (error) {
      logger.warn('channel budget share not updated', { error: String(error) });
    }
  };
  share();
  const timer = setInterval(share, config.load.reportIntervalMs);
  timer.unref(); // the share alone never keeps a process alive
  return { stop: () => clearInterval(timer) };
}
