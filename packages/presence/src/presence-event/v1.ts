/**
 * Presence event value, version 1: what login services have published from
 * the start, JSON with no `v` field (or `"v": 1`):
 *
 *   { "uin": 123, "online": true, "at": 1763780000000 }
 *
 *   uin     integer in [0, the bitmap's uinLimit)
 *   online  boolean: a login (true) or a logout (false)
 *   at      optional, finite number of epoch ms: when it happened; absent, the
 *           event's own (Kafka CreateTime) timestamp counts
 *
 * Other fields are ignored (version 2's `sig` rides on the same fields).
 */
import type { PresenceChange } from './types';

export const VERSION = 1;

/** The change a version 1 value asks for, or the reason it is malformed. */
export function read(
  fields: Record<string, unknown>,
  timestamp: number,
  uinLimit: number,
): PresenceChange | { malformed: string } {
  const { uin, online, at } = fields;
  if (typeof uin !== 'number' || !Number.isInteger(uin) || uin < 0 || uin >= uinLimit)
    return { malformed: `uin ${shown(uin)} is not an integer in [0, ${uinLimit})` };
  if (typeof online !== 'boolean') return { malformed: `online ${shown(online)} is not a boolean` };
  if (at !== undefined && (typeof at !== 'number' || !Number.isFinite(at)))
    return { malformed: `at ${shown(at)} is not a number` };
  return { uin, online, at: (at as number | undefined) ?? timestamp };
}

/** A value for a malformed reason: its JSON, or its type when it has none (a BigInt, a cycle, a symbol) so describing never throws. */
export function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
