import type { HeraldConfig } from '@herald/core/config';
import { noopLogger, type DeliveryGateway } from '@herald/core/ports';
import { KafkaDeliveryGateway } from '@herald/events-kafka';
import { createDeliveryGateway, pacedChannel, type ChannelObservers } from '@herald/executor';
import { openDeviceRegistry } from './adapters';
import { kafkaSecurityOptions } from './connection-security';
import { openApnsChannel, openFcmChannel } from './push-delivery';

/**
 * The delivery channel `delivery` configures, for the executor process `id`
 * (docs/delivery.md): the file sink, a webhook or a ZeroMQ push gateway as
 * every profile makes them (the gateway's CURVE key files read now); a Kafka topic connected here (its producer named
 * `<clientId>-<id>`), then paced by its outcomes like the webhook; FCM or
 * APNs with the MySQL device registry (push-delivery.ts). A channel
 * that cannot start (no broker, no such topic, refused credentials, an
 * unreadable key file) fails with one ConfigError naming the setting.
 */
export async function openDeliveryGateway(
  config: HeraldConfig,
  id: string,
  fileDir: string,
  observers: ChannelObservers = {},
): Promise<DeliveryGateway> {
  const { delivery } = config;
  if (delivery.kind === 'fcm' || delivery.kind === 'apns') {
    const registry = await openDeviceRegistry(config, observers.logger ?? noopLogger);
    try {
      return delivery.kind === 'fcm'
        ? openFcmChannel(delivery.fcm, registry, observers)
        : openApnsChannel(delivery.apns, registry, observers);
    } catch (error) {
      await registry.close();
      throw error;
    }
  }
  if (delivery.kind !== 'kafka') return createDeliveryGateway(delivery, fileDir, observers);
  const kafka = delivery.kafka;
  const gateway = await KafkaDeliveryGateway.connect({
    brokers: kafka.brokers,
    topic: kafka.topic,
    clientId: `${kafka.clientId}-${id}`,
    timeoutMs: kafka.timeoutMs,
    maxRecordBytes: kafka.maxRecordBytes,
    keyShiftBits: kafka.keyShiftBits,
    idempotent: kafka.idempotent,
    ...kafkaSecurityOptions(kafka, 'delivery.kafka'),
    ...(observers.logger === undefined ? {} : { logger: observers.logger }),
  });
  return pacedChannel('kafka', gateway, kafka, observers);
}
