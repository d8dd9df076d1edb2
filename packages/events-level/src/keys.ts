/**
 * Key layout of the embedded event log. Every key starts with a tag byte;
 * names are length-prefixed (u16 BE, then UTF-8) so one topic's keys never
 * run into another's; positions are u64 big-endian, so LevelDB's byte order is
 * the log's order.
 *
 *   'e' topic position     -> one event: JSON [key, timestamp, value]
 *   'c' topic group        -> the group's next position (u64 BE): every event
 *                             before it was handled
 */

const EVENT = 0x65; // 'e'
const COMMITTED = 0x63; // 'c'

function name(value: string): Buffer {
  const bytes = Buffer.from(value, 'utf8');
  const out = Buffer.allocUnsafe(2 + bytes.length);
  out.writeUInt16BE(bytes.length, 0);
  bytes.copy(out, 2);
  return out;
}

function u64(value: number): Buffer {
  const out = Buffer.allocUnsafe(8);
  out.writeBigUInt64BE(BigInt(value), 0);
  return out;
}

const topicPrefix = (topic: string) => Buffer.concat([Buffer.of(EVENT), name(topic)]);

export function eventKey(topic: string, position: number): Buffer {
  return Buffer.concat([topicPrefix(topic), u64(position)]);
}

/** Iterator bounds for a topic's events from `position` on. */
export function eventsFrom(topic: string, position: number): { gte: Buffer; lt: Buffer } {
  const prefix = topicPrefix(topic);
  return { gte: Buffer.concat([prefix, u64(position)]), lt: Buffer.concat([prefix, Buffer.alloc(8, 0xff)]) };
}

/** The position at the end of an event key. */
export function positionOf(key: Buffer): number {
  return Number(key.readBigUInt64BE(key.length - 8));
}

export function committedKey(topic: string, group: string): Buffer {
  return Buffer.concat([Buffer.of(COMMITTED), name(topic), name(group)]);
}

export const encodePosition = u64;

export function decodePosition(value: Buffer): number {
  return Number(value.readBigUInt64BE(0));
}

/** A position as ConsumedEvent.position: fixed width, so positions compare in order as strings. */
export function positionString(position: number): string {
  return String(position).padStart(20, '0');
}
