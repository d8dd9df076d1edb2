/**
 * @module @herald/events-kafka
 *
 * The production EventBus on Kafka (kafkajs): presence events, reports and
 * task events, keyed so that each key's events stay in order, consumed at
 * least once by consumer groups that commit only after their handler
 * resolved. It passes the same conformance suite (@herald/testing
 * `eventBusConformance`) as the embedded LevelDB log. Also the Kafka topic
 * delivery channel, `KafkaDeliveryGateway` (a DeliveryGateway adapter, run by
 * `deliveryGatewayConformance`; docs/delivery.md, "The Kafka topic").
 *
 * @example
 *   import { TOPICS } from '@herald/core/ports';
 *   import { KafkaEventBus } from '@herald/events-kafka';
 *   const bus = await KafkaEventBus.connect({ brokers: ['kafka-1:9092', 'kafka-2:9092'], clientId: 'herald-controller-1', topicPrefix: 'prod.' });
 *   await bus.publish(TOPICS.taskEvents, [{ key: '42', value: { to: 'SENDING' }, timestamp: Date.now() }]);
 *   const sub = await bus.subscribe(TOPICS.presence, 'presence-host-7', async (events) => {
 *     for (const e of events) console.log(e.key, e.value);
 *   });
 *   await sub.close();
 *   await bus.close();
 */
export { KafkaEventBus } from './kafka-event-bus';
export type { KafkaEventBusOptions } from './options';
export { compileKafkaSecurity } from './security';
export type { KafkaSaslCredentials, KafkaTlsMaterial, KafkaSecurity } from './security';
export { KafkaDeliveryGateway } from './kafka-delivery-gateway';
export type { KafkaDeliveryGatewayOptions } from './kafka-delivery-gateway';
export { DELIVERY_HEADERS, DELIVERY_RECORD_VERSION, batchIdempotencyKey, deliveryRecords } from './delivery-record';
export type { DeliveryRecord, DeliveryRecordValue } from './delivery-record';
