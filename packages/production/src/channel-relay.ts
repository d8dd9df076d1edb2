import type { HeraldConfig, TopologyMember } from '@herald/core/config';
import type { DeliveryGateway, Logger } from '@herald/core/ports';
import { PacedDeliveryGateway, type ChannelThrottle } from '@herald/executor';
import type { PushChannel } from '@herald/transport';
import type { ProcessLinks } from './links';

/** How long a relay waits for room in a peer's queue: a dead or stuck executor must not hold up the others. */
const RELAY_SEND_TIMEOUT_MS = 1000;
/** The most a u32 field of the messages carries. */
const U32_MAX = 0xffff_ffff;
/** A throttle ending no later than this after one already relayed is the same news (batches in flight answered together). */
const SAME_THROTTLE_MS = 100;

export interface ChannelRelay {
  /** This executor's id. */
  readonly id: string;
  /** Whether this executor relays at all (it and its channel have a channelEndpoint and a pacing). */
  readonly relaying: boolean;
  /** Tells every peer this executor's demand on the channel and the rate it sends at (channel.demand). */
  tellDemand(demand: number, rate: number): void;
  /** A peer's last demand, if it came within `maxAgeMs`; undefined when none did (an older build, or silent). */
  demandOf(peer: string, maxAgeMs: number): number | undefined;
  /** The rate a peer told with that demand; undefined when none came within `maxAgeMs` or it told none (v1). */
  rateOf(peer: string, maxAgeMs: number): number | undefined;
  /** Calls `listener` each time a peer tells demand 0 after one above 0 (it ran out of work); returns the unsubscribe. */
  onPeerIdle(listener: () => void): () => void;
  stop(): void;
}

const notRelaying = (id: string): ChannelRelay => ({
  id,
  relaying: false,
  tellDemand: () => undefined,
  demandOf: () => undefined,
  rateOf: () => undefined,
  onPeerIdle: () => () => undefined,
  stop: () => undefined,
});

/**
 * Carries a throttle across executor processes (docs/delivery.md, "One
 * budget per channel"): when this executor's paced channel is throttled, it
 * tells every other executor that names a `channelEndpoint` at once
 * (`channel.throttled`, with the hold's length), and it holds its own
 * channel when a peer tells it the same. So a 429 one executor gets holds the
 * cluster for the Retry-After, instead of each executor paying a 429 of its
 * own to learn it. On the same links the executors tell each other their
 * demand on the channel and the rate each sends at (channel.demand, every
 * load.reportIntervalMs from channel-budget.ts), by which they split its
 * budget.
 *
 * Its own inbox rather than the batch inbox: that one is read only as the
 * executor has room for batches, and may hold a whole broadcast's batches
 * ahead of the message. Sends never wait on a peer: a relay to a peer whose
 * previous one is still on its way is dropped (that peer will learn from
 * its own next send, as without the relay).
 */
export async function startChannelRelay(
  config: HeraldConfig,
  id: string,
  gateway: DeliveryGateway,
  links: ProcessLinks,
  logger: Logger,
): Promise<ChannelRelay> {
  const executors = config.production!.topology.executors;
  const me = executors.find((e) => e.id === id);
  if (!(gateway instanceof PacedDeliveryGateway) || me?.channelEndpoint === undefined) return notRelaying(id);
  const inbox = await links.bindInbox(me.channelEndpoint, `${id}.channel`);
  const peers = await connectPeers(links, executors, id);
  let relayedUntil = -Infinity;
  const unsubscribe = gateway.onThrottled((throttle: ChannelThrottle) => {
    const until = Date.now() + throttle.holdMs;
    if (until <= relayedUntil + SAME_THROTTLE_MS) return;
    relayedUntil = until;
    const holdMs = Math.min(U32_MAX, Math.ceil(throttle.holdMs));
    const message = {
      kind: 'channel.throttled' as const,
      executorId: id,
      channel: gateway.channel,
      holdMs,
      detail: throttle.detail,
    };
    for (const peer of peers) peer.tell(message, logger);
  });
  const demands = new Map<string, { demand: number; rate: number | undefined; at: number }>();
  const idleWatchers = new Set<() => void>();
  void (async () => {
    for await (const message of inbox.messages()) {
      if (message.kind === 'channel.demand' && message.channel === gateway.channel) {
        const before = demands.get(message.executorId)?.demand;
        demands.set(message.executorId, { demand: message.demand, rate: message.rate, at: Date.now() });
        if (message.demand === 0 && before !== undefined && before > 0) for (const watcher of idleWatchers) watcher();
        continue;
      }
      if (message.kind !== 'channel.throttled' || message.channel !== gateway.channel) {
        logger.warn('channel relay ignores a message not meant for it', { kind: message.kind });
        continue;
      }
      logger.debug('channel throttled at a peer: holding too', {
        channel: message.channel,
        from: message.executorId,
        holdMs: message.holdMs,
      });
      gateway.throttledByPeer(message.holdMs, message.detail, message.executorId);
    }
  })().catch((error: unknown) => logger.debug('channel relay inbox closed', { error: String(error) }));
  logger.info('channel throttles relayed', { channel: gateway.channel, peers: peers.map((p) => p.id) });
  return {
    id,
    relaying: true,
    tellDemand(demand, rate) {
      const message = {
        kind: 'channel.demand' as const,
        executorId: id,
        channel: gateway.channel,
        demand: Math.min(U32_MAX, Math.round(demand)),
        rate: Math.min(U32_MAX, Math.round(rate)),
      };
      for (const peer of peers) peer.tell(message, logger);
    },
    demandOf(peer, maxAgeMs) {
      const heard = demands.get(peer);
      return heard !== undefined && Date.now() - heard.at <= maxAgeMs ? heard.demand : undefined;
    },
    rateOf(peer, maxAgeMs) {
      const heard = demands.get(peer);
      return heard !== undefined && Date.now() - heard.at <= maxAgeMs ? heard.rate : undefined;
    },
    onPeerIdle(listener) {
      idleWatchers.add(listener);
      return () => idleWatchers.delete(listener);
    },
    stop: unsubscribe,
  };
}

interface Peer {
  id: string;
  tell(message: Parameters<PushChannel['send']>[0], logger: Logger): void;
}

/**
 * A link to each other executor's channel inbox, sending without waiting and
 * at most one message of each kind at a time (a demand on its way never
 * drops a throttle).
 */
async function connectPeers(links: ProcessLinks, executors: readonly TopologyMember[], id: string): Promise<Peer[]> {
  const peers: Peer[] = [];
  for (const member of executors) {
    if (member.id === id || member.channelEndpoint === undefined) continue;
    const channel = await links.connect({ id: member.id, endpoint: member.channelEndpoint }, RELAY_SEND_TIMEOUT_MS);
    const sending = new Set<string>();
    peers.push({
      id: member.id,
      tell(message, logger) {
        if (sending.has(message.kind)) return;
        sending.add(message.kind);
        channel
          .send(message)
          .catch((error: unknown) =>
            logger.debug('channel news not relayed', { to: member.id, kind: message.kind, error: String(error) }),
          )
          .finally(() => sending.delete(message.kind));
      },
    });
  }
  return peers;
}
