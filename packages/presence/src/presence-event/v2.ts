/**
 * Presence event value, version 2: a signed event (presence-signature.ts).
 * Version 1's fields plus `"v": 2` and a `sig`, with `at` required as an
 * integer of epoch ms, because it is signed:
 *
 *   { "v": 2, "uin": 123, "online": true, "at": 1763780000000, "sig": "<64 hex>" }
 *
 * Reading checks the fields only; whether a signature is required, and
 * whether `sig` is right, is the agent's choice (`presence.hmacKeyFile`).
 */
import type { PresenceChange } from './types';
import { read as readV1, shown } from './v1';

export const VERSION = 2;

/** The change a version 2 value asks for, or the reason it is malformed. */
export function read(
  fields: Record<string, unknown>,
  timestamp: number,
  uinLimit: number,
): PresenceChange | { malformed: string } {
  const change = readV1(fields, timestamp, uinLimit);
  if ('malformed' in change) return change;
  const { at } = fields;
  if (!Number.isSafeInteger(at) || (at as number) < 0)
    return { malformed: `at ${shown(at)} is not an integer of epoch ms, which version 2 needs` };
  return change;
}
