import { ValidationError, type BusEvent, type ConsumedEvent } from '@herald/core';
import type { KafkaMessage, Message } from 'kafkajs';

/** Kafka's rule for topic names; the embedded log applies the same one. */
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const MAX_GROUP_LENGTH = 255;

export function checkTopic(topic: string): void {
  if (typeof topic !== 'string' || !TOPIC.test(topic)) throw new ValidationError('topic must match [a-zA-Z0-9._-]{1,249}', { topic });
}

export function checkGroup(group: string): void {
  if (typeof group !== 'string' || group.length === 0 || group.length > MAX_GROUP_LENGTH) {
    throw new ValidationError(`group must be a non-empty string of at most ${MAX_GROUP_LENGTH} characters`, { group });
  }
}

/**
 * Checks every event before anything is sent (a call is all or nothing) and
 * turns each into a Kafka message: keyed by `key` (same key, same partition,
 * so order holds), the value as JSON text, the event time as the message's
 * CreateTime.
 */
export function toMessages(events: readonly BusEvent[]): Message[] {
  if (!Array.isArray(events)) throw new ValidationError('events must be an array');
  return events.map((event, index) => {
    const { key, value, timestamp } = event ?? ({} as BusEvent);
    if (typeof key !== 'string') throw new ValidationError('event key must be a string', { index });
    if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new ValidationError('event timestamp must be a non-negative integer (epoch ms)', { index, timestamp });
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      throw new ValidationError(`event value is not JSON-serialisable: ${(error as Error).message}`, { index });
    }
    if (json === undefined) throw new ValidationError('event value is not JSON-serialisable (undefined, a function or a symbol)', { index });
    return { key, value: json, timestamp: String(timestamp) };
  });
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
