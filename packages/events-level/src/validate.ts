import type { BusEvent, CheckedEvent } from '@herald/core/ports';

/** An event checked by the base (`checkEvents` in @herald/core) as the stored JSON text `[key, timestamp, value]`. */
export function encodeEvent({ key, timestamp, json }: CheckedEvent): string {
  return `[${JSON.stringify(key)},${timestamp},${json}]`;
}

export function decodeEvent(text: string): BusEvent {
  const [key, timestamp, value] = JSON.parse(text) as [string, number, unknown];
  return { key, timestamp, value };
}
