import type { HeraldConfig } from '@herald/core/config';
import { liveSenders } from '@herald/core/pacing';
import type { DeliveryGateway, Logger } from '@herald/core/ports';
import { PacedDeliveryGateway } from '@herald/executor';
import type { ClusterRing } from './cluster-ring';

export interface ChannelBudgetShare {
  stop(): void;
}

/**
 * Keeps an executor process's paced channel at its share of the channel's
 * budget (docs/delivery.md, "One budget per channel"): every
 * load.reportIntervalMs it counts the executors sending through the channel
 * and paces to 1/count of the limits. With APTA, the executors its
 * membership sees in any state but OFFLINE (one that died gives its share
 * back to the rest once it is OFFLINE); without, every executor of the
 * topology (a static cluster: all are meant to run). A gateway that is not
 * paced (the file sink) is left alone.
 */
export function shareChannelBudget(
  config: HeraldConfig,
  gateway: DeliveryGateway,
  ring: ClusterRing,
  logger: Logger,
): ChannelBudgetShare {
  if (!(gateway instanceof PacedDeliveryGateway)) return { stop: () => undefined };
  const executors = config.production!.topology.executors.map((e) => e.id);
  const count = () => {
    const membership = ring.membership();
    return membership.apta ? liveSenders(membership.members, executors) : Math.max(1, executors.length);
  };
  const share = () => {
    try {
      gateway.shareAmong(count());
    } catch (error) {
      logger.warn('channel budget share not updated', { error: String(error) });
    }
  };
  share();
  const timer = setInterval(share, config.load.reportIntervalMs);
  timer.unref(); // the share alone never keeps a process alive
  return { stop: () => clearInterval(timer) };
}
