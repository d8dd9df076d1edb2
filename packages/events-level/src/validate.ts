import { checkEvents, type BusEvent } from '@herald/core/ports';

/**
 * Checks every event before anything is written (a call is all or nothing, see
 * `checkEvents` in @herald/core) and returns each as the stored JSON text
 * `[key, timestamp, value]`.
 */
export function encodeEvents(events: readonly BusEvent[]): string[] {
  return checkEvents(events).map(({ key, timestamp, json }) => `[${JSON.stringify(key)},${timestamp},${json}]`);
}

export function decodeEvent(text: string): BusEvent {
  const [key, timestamp, value] = JSON.parse(text) as [string, number, unknown];
  return { key, timestamp, value };
}
