import type { DeliveryConfig } from '@herald/core/config';
import type { DeliveryGateway } from '@herald/core/ports';
import { FileDeliverySink } from './file-sink';
import { WebhookDeliveryGateway } from './webhook-gateway';

/** The delivery gateway `delivery` configures; `fileDir` is where the file sink writes. */
export function createDeliveryGateway(delivery: DeliveryConfig, fileDir: string): DeliveryGateway {
  return delivery.kind === 'webhook' ? new WebhookDeliveryGateway(delivery.webhook) : new FileDeliverySink(fileDir);
}
