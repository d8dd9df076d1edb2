import { ValidationError, type BusEvent } from '@herald/core';

/** Kafka's rule for topic names, applied here too so the embedded profile accepts exactly what production does. */
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
 * Checks every event before anything is written (a call is all or nothing)
 * and returns each as the stored JSON text `[key, timestamp, value]`.
 */
export function encodeEvents(events: readonly BusEvent[]): string[] {
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
    return `[${JSON.stringify(key)},${timestamp},${json}]`;
  });
}

export function decodeEvent(text: string): BusEvent {
  const [key, timestamp, value] = JSON.parse(text) as [string, number, unknown];
  return { key, timestamp, value };
}
