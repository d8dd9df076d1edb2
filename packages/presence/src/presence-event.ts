/**
 * A presence event on the presence topic, as login services publish it:
 * key = the uin as a decimal string, value = { uin, online, at? }. `at` is
 * when the login or logout happened (epoch ms); without it the event's own
 * timestamp counts. docs/presence.md describes the topic.
 *
 * Version 1 has no `v` field (or `"v": 1`). Version 2 is a signed event
 * (presence-signature.ts): `"v": 2`, a `sig`, and `at` required as an
 * integer. Both are read the same way; whether a signature is required and
 * checked is the agent's choice (`presence.hmacKeyFile`).
 */
export interface PresenceEventValue {
  v?: 1 | 2;
  uin: number;
  online: boolean;
  at?: number;
  /** Version 2: hex HMAC-SHA256 of the event's signed bytes. */
  sig?: string;
}

export interface PresenceChange {
  uin: number;
  online: boolean;
  at: number;
}

/** The change an event asks for, or the reason it is malformed. */
export function readPresenceEvent(value: unknown, timestamp: number, uinLimit: number): PresenceChange | { malformed: string } {
  if (value === null || typeof value !== 'object') return { malformed: 'value is not an object' };
  const { v, uin, online, at } = value as Record<string, unknown>;
  if (v !== undefined && v !== 1 && v !== 2) return { malformed: `v ${shown(v)} is not a known version (1 or 2)` };
  if (typeof uin !== 'number' || !Number.isInteger(uin) || uin < 0 || uin >= uinLimit) return { malformed: `uin ${shown(uin)} is not an integer in [0, ${uinLimit})` };
  if (typeof online !== 'boolean') return { malformed: `online ${shown(online)} is not a boolean` };
  if (at !== undefined && (typeof at !== 'number' || !Number.isFinite(at))) return { malformed: `at ${shown(at)} is not a number` };
  if (v === 2 && (!Number.isSafeInteger(at) || (at as number) < 0)) return { malformed: `at ${shown(at)} is not an integer of epoch ms, which version 2 needs` };
  return { uin, online, at: (at as number | undefined) ?? timestamp };
}

/** A value for a malformed reason: its JSON, or its type when it has none (a BigInt, a cycle, a symbol) so describing never throws. */
function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? typeof value;
  } catch {
    return typeof value;
  }
}
