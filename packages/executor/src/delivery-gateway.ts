import { ConfigError } from '@herald/core';
import type { DeliveryConfig, KafkaDeliveryConfig } from '@herald/core/config';
import type { Clock, DeliveryGateway, Logger, Meter } from '@herald/core/ports';
import { FileDeliverySink } from './file-sink';
import { PacedDeliveryGateway } from './paced-gateway';
import { WebhookDeliveryGateway } from './webhook-gateway';
import { openZmqGateway } from './zmq-channel';

/** What a paced channel reports to and reads its time from. */
export interface ChannelObservers {
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

/** A channel's pacing settings as `delivery.<kind>` holds them. */
export type ChannelSettings = Pick<KafkaDeliveryConfig, 'maxAttempts' | 'retryDelayMs' | 'pacing'>;

/**
 * The delivery gateway `delivery` configures; `fileDir` is where the file
 * sink writes. A webhook is paced by its answers (PacedDeliveryGateway), one
 * pacing for every task and executor that shares the returned gateway: call
 * this once per process. A Kafka topic needs its adapter connected first
 * (the production profile does, then `pacedChannel`): here it is refused.
 * A ZeroMQ push gateway needs no broker: every profile opens it here, its
 * key files read now (a bad one fails the start with a ConfigError).
 */
export function createDeliveryGateway(
  delivery: DeliveryConfig,
  fileDir: string,
  observers: ChannelObservers = {},
): DeliveryGateway {
  if (delivery.kind === 'file') return new FileDeliverySink(fileDir);
  if (delivery.kind === 'zmq')
    return pacedChannel('zmq', openZmqGateway(delivery.zmq, observers), delivery.zmq, observers);
  if (delivery.kind !== 'webhook')
    throw new ConfigError(
      'delivery.kind',
      `'${delivery.kind}' is served by the production profile (herald start executor); this profile takes 'file', 'webhook' or 'zmq'`,
    );
  const { url, timeoutMs, headers } = delivery.webhook;
  const webhook = new WebhookDeliveryGateway({
    url,
    timeoutMs,
    headers,
    ...(observers.clock ? { now: () => observers.clock!.now() } : {}),
    ...(observers.logger ? { logger: observers.logger } : {}),
  });
  return pacedChannel('webhook', webhook, delivery.webhook, observers);
}

/**
 * A channel's adapter paced by its outcomes (PacedDeliveryGateway,
 * docs/delivery.md "Pacing by the channel's health"): `channel` is the
 * delivery kind, its metrics' label. One per channel per process.
 */
export function pacedChannel(
  channel: string,
  gateway: DeliveryGateway,
  { maxAttempts, retryDelayMs, pacing }: ChannelSettings,
  observers: ChannelObservers = {},
): DeliveryGateway {
  const { breakerOpenMs, maxHoldMs, ...rates } = pacing;
  return new PacedDeliveryGateway(gateway, {
    channel,
    pacing: { ...rates, openMs: breakerOpenMs, failureThreshold: maxAttempts, failureDelayMs: retryDelayMs },
    maxHoldMs,
    ...observers,
  });
}
