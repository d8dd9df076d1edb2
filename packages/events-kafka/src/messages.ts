import type { CheckedEvent, ConsumedEvent } from '@herald/core/ports';
import type { KafkaMessage, Message } from 'kafkajs';

/**
 * An event checked by the base (`checkEvents` in @herald/core) as a Kafka
 * message: keyed by `key` (same key, same partition, so order holds), the
 * value as JSON text, the event time as the message's CreateTime.
 */
export function toMessage({ key, timestamp, json }: CheckedEvent): Message {
  return { key, value: json, timestamp: String(timestamp) };
}

/** A position: partition and zero-padded offset, so the positions of one key compare in order as strings. */
export function position(partition: number, offset: string): string {
  return `${partition}/${offset.padStart(20, '0')}`;
}

/** A consumed Kafka message as a ConsumedEvent; throws if its value is not JSON. */
export function fromMessage(topic: string, partition: number, message: KafkaMessage): ConsumedEvent {
  return {
    topic,
    position: position(partition, message.offset),
    key: message.key === null ? '' : message.key.toString('utf8'),
    value: message.value === null ? null : JSON.parse(message.value.toString('utf8')),
    timestamp: Number(message.timestamp),
  };
}
