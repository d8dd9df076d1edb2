import type { HeraldConfig } from '@herald/core/config';
import type { DeliveryGateway } from '@herald/core/ports';
import { KafkaDeliveryGateway } from '@herald/events-kafka';
import { createDeliveryGateway, pacedChannel, type ChannelObservers } from '@herald/executor';
import { kafkaSecurityOptions } from './connection-security';

/**
 * The delivery channel `delivery` configures, for the executor process `id`
 * (docs/delivery.md): the file sink, a webhook or a ZeroMQ push gateway as
 * every profile makes them (the gateway's CURVE key files read now); a Kafka topic connected here (its producer named
 * `<clientId>-<id>`), then paced by its outcomes like the webhook. A channel
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
