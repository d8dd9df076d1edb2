/*
 * The argument checks of the EventBus contract, shared by every EventBus
 * adapter (Kafka and the embedded LevelDB log) so the embedded profile accepts
 * exactly what production does. Pure: no I/O.
 */
import { ValidationError } from '../errors';
import type { BusEvent, CheckedSubscribeOptions, SubscribeOptions } from './event-bus';

/** Kafka's rule for topic names; the embedded log applies the same one. */
const TOPIC = /^[a-zA-Z0-9._-]{1,249}$/;
const MAX_GROUP_LENGTH = 255;

export function checkTopic(topic: string): void {
  if (typeof topic !== 'string' || !TOPIC.test(topic))
    throw new ValidationError('topic must match [a-zA-Z0-9._-]{1,249}', { topic });
}

export function checkGroup(group: string): void {
  if (typeof group !== 'string' || group.length === 0 || group.length > MAX_GROUP_LENGTH) {
    throw new ValidationError(`group must be a non-empty string of at most ${MAX_GROUP_LENGTH} characters`, { group });
  }
}

/** The port's documented default wait before a failed batch is delivered again. */
const DEFAULT_RETRY_DELAY_MS = 100;

/** Checks `subscribe`'s arguments and fills the options' defaults. */
export function checkSubscription(
  topic: string,
  group: string,
  handler: unknown,
  options: SubscribeOptions,
): CheckedSubscribeOptions {
  checkTopic(topic);
  checkGroup(group);
  if (typeof handler !== 'function') throw new ValidationError('handler must be a function');
  const { fromBeginning = false, retryDelayMs = DEFAULT_RETRY_DELAY_MS, onSkip } = options;
  if (!(retryDelayMs >= 0)) throw new ValidationError('retryDelayMs must be >= 0', { retryDelayMs });
  if (onSkip !== undefined && typeof onSkip !== 'function') throw new ValidationError('onSkip must be a function');
  return onSkip === undefined ? { fromBeginning, retryDelayMs } : { fromBeginning, retryDelayMs, onSkip };
}

/** An event that passed `checkEvents`: its key, its timestamp (epoch ms) and its value as JSON text. */
export interface CheckedEvent {
  key: string;
  timestamp: number;
  json: string;
}

/**
 * Checks every event before anything is sent or written (a call is all or
 * nothing): the key is a string, the timestamp a non-negative integer (epoch
 * ms) and the value JSON-serialisable. Returns each with its value as JSON text.
 */
export function checkEvents(events: readonly BusEvent[]): CheckedEvent[] {
  if (!Array.isArray(events as unknown)) throw new ValidationError('events must be an array');
  return events.map((event, index) => {
    const { key, value, timestamp } = event ?? ({} as BusEvent);
    if (typeof key !== 'string') throw new ValidationError('event key must be a string', { index });
    if (!Number.isSafeInteger(timestamp) || timestamp < 0)
      throw new ValidationError('event timestamp must be a non-negative integer (epoch ms)', { index, timestamp });
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch (error) {
      throw new ValidationError(`event value is not JSON-serialisable: ${(error as Error).message}`, { index });
    }
    if (json === undefined)
      throw new ValidationError('event value is not JSON-serialisable (undefined, a function or a symbol)', { index });
    return { key, timestamp, json };
  });
}
