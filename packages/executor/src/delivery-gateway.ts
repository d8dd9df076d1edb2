import type { DeliveryConfig } from '@herald/core/config';
import type { Clock, DeliveryGateway, Logger, Meter } from '@herald/core/ports';
import { FileDeliverySink } from './file-sink';
import { PacedDeliveryGateway } from './paced-gateway';
import { WebhookDeliveryGateway } from './webhook-gateway';

/** What a paced channel reports to and reads its time from. */
export interface ChannelObservers {
  clock?: Clock;
  logger?: Logger;
  meter?: Meter;
}

/**
 * The delivery gateway `delivery` configures; `fileDir` is where the file
 * sink writes. A webhook is paced by its answers (PacedDeliveryGateway), one
 * pacing for every task and executor that shares the returned gateway: call
 * this once per process.
 */
export function createDeliveryGateway(
  delivery: DeliveryConfig,
  fileDir: string,
  observers: ChannelObservers = {},
): DeliveryGateway {
  if (delivery.kind !== 'webhook') return new FileDeliverySink(fileDir);
  const { url, timeoutMs, headers, maxAttempts, retryDelayMs, pacing } = delivery.webhook;
  const webhook = new WebhookDeliveryGateway({
    url,
    timeoutMs,
    headers,
    ...(observers.clock ? { now: () => observers.clock!.now() } : {}),
    ...(observers.logger ? { logger: observers.logger } : {}),
  });
  const { breakerOpenMs, maxHoldMs, ...rates } = pacing;
  return new PacedDeliveryGateway(webhook, {
    channel: 'webhook',
    pacing: { ...rates, openMs: breakerOpenMs, failureThreshold: maxAttempts, failureDelayMs: retryDelayMs },
    maxHoldMs,
    ...observers,
  });
}
