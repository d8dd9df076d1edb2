import type { HeraldConfig } from '@herald/core/config';
import { demandFraction, liveSenderIds, partToApply, type LastDemandReport } from '@herald/core/pacing';
import type { DeliveryGateway, Logger } from '@herald/core/ports';
import { PacedDeliveryGateway } from '@herald/executor';
import type { ChannelRelay } from './channel-relay';
import type { ClusterRing } from './cluster-ring';

/**
 * The least part of an even share an executor keeps when it has no demand:
 * work that comes to it goes at once, and its next report claims the rest.
 */
export const DEMAND_FLOOR = 0.1;

/**
 * How long an executor's channel must stay without a batch in hand before it
 * tells the others its demand is 0, between reports: long enough that the
 * gap between two batches of a running broadcast does not count (a false 0
 * costs this executor a report at its floor), short against the report
 * interval (the executor left sending alone waits on this news).
 */
export const IDLE_TELL_MS = 250;

export interface ChannelBudgetShare {
  stop(): void;
}

/** What the share needs of the relay: the demands the executors tell each other. */
export type DemandLinks = Pick<ChannelRelay, 'id' | 'relaying' | 'tellDemand' | 'demandOf' | 'rateOf' | 'onPeerIdle'>;

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
 * of its own demand's from the next report on, any other change at once;
 * and IDLE_TELL_MS after its last batch in hand left, it tells 0 without
 * waiting for the report; a peer's telling 0 is taken at once, not at the
 * next report); otherwise to 1/count. With its demand it tells the rate
 * it sends at, and a larger part sets its rate to that part of the
 * executors' rates together (core ChannelPacing.rescale), when every live
 * peer told one. A gateway that is not paced (the file sink) is left alone.
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
  // The last report's part and demand: a rise from this executor's own demand growing applies only from the
  // report after the one that told it, once the peers have heard it and taken their own parts down (else for
  // up to an interval the parts would sum past the budget); a fall, or a rise from the peers' demands falling,
  // applies at once (core partToApply).
  let last: LastDemandReport | undefined;
  // The rate told with the demand: what this executor sends at while it has work; out of work, the last such
  // (a peer taking the budget it leaves needs the rate the two sent at together, not this one's floor).
  let toldRate: number | undefined;
  const apply = (links: DemandLinks, own: number) => {
    const peerIds = liveIds().filter((id) => id !== links.id);
    const peers = peerIds.map((id) => links.demandOf(id, config.load.maxReportAgeMs));
    const fraction = demandFraction(own, peers, DEMAND_FLOOR);
    const senders = peers.length + 1;
    gateway.shareByDemand(partToApply(fraction, own, last, senders), senders, sendersRate(links, peerIds));
    last = { fraction, told: own };
  };
  // Every sender's rate together, when every live peer told one lately (else the part only scales the rate).
  const sendersRate = (links: DemandLinks, peerIds: string[]): number | undefined => {
    let sum = gateway.sendingRate();
    for (const id of peerIds) {
      const rate = links.rateOf(id, config.load.maxReportAgeMs);
      if (rate === undefined) return undefined;
      sum += rate;
    }
    return sum;
  };
  const report = (links: DemandLinks, own: number) => {
    apply(links, own);
    // Told after its part is applied: the rate it sends at from now (the first report's is its part's, not the whole).
    if (own > 0 || toldRate === undefined) toldRate = gateway.sendingRate();
    links.tellDemand(own, toldRate);
  };
  const share = () => {
    try {
      if (relay?.relaying !== true) return gateway.shareAmong(Math.max(1, liveIds().length));
      report(relay, gateway.takeDemand());
    } catch (error) {
      logger.warn('channel budget share not updated', { error: String(error) });
    }
  };
  // Out of work: tell 0 now, not at the next report, so a peer left sending alone takes the budget up to a
  // report sooner (its rise applies at once: its own demand did not grow). Taking the floor is a fall: at once.
  const tellIdle = () => {
    try {
      if (relay?.relaying !== true || gateway.inHand() > 0 || last === undefined || last.told === 0) return;
      gateway.takeDemand(); // the peak before the idle is past news; the next report starts from what comes
      report(relay, 0);
    } catch (error) {
      logger.warn('channel budget share not updated', { error: String(error) });
    }
  };
  // A peer ran out of work (told 0): its room is free now, so the part is computed again at once with this
  // executor's demand as last told (a rise from the others' falling applies at once), not at the next report.
  const peerIdle = () => {
    try {
      if (relay?.relaying === true && last !== undefined) apply(relay, last.told);
    } catch (error) {
      logger.warn('channel budget share not updated', { error: String(error) });
    }
  };
  const unwatchPeerIdle = relay?.onPeerIdle(peerIdle);
  let idleTimer: NodeJS.Timeout | undefined;
  const unwatchIdle = gateway.onIdle(() => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(tellIdle, IDLE_TELL_MS);
    idleTimer.unref();
  });
  share();
  const timer = setInterval(share, config.load.reportIntervalMs);
  timer.unref(); // the share alone never keeps a process alive
  return {
    stop: () => {
      clearInterval(timer);
      clearTimeout(idleTimer);
      unwatchIdle();
      unwatchPeerIdle?.();
    },
  };
}
