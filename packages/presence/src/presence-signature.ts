import { createHmac, timingSafeEqual } from 'node:crypto';
import { ConfigError } from '@herald/core';
import type { PresenceChange } from './presence-event';

/**
 * Signed presence events (docs/presence.md, "Signed events"). Anyone who can
 * produce to the presence topic decides who is online; with a key shared by
 * the login service and the agents (`presence.hmacKeyFile`), the agents apply
 * only events the login service signed.
 *
 * Wire version 2 of the event value adds two fields to version 1's
 * `{ uin, online, at? }`: `"v": 2` and `"sig"`, and makes `at` required:
 *
 *   { "v": 2, "uin": 123, "online": true, "at": 1763780000000, "sig": "<64 hex>" }
 *
 * sig = lowercase hex of HMAC-SHA256(key, bytes), where bytes is the UTF-8 of
 *
 *   "herald.presence.v2\n" + uin + "\n" + (online ? "1" : "0") + "\n" + at
 *
 * with uin and at as decimal integers (no sign, exponent or fraction). These
 * fields, not the JSON text, are signed, so any JSON encoder may write the
 * value. `at` is signed because it orders a user's events: a replayed old
 * event is older than the user's newest and is skipped as stale.
 */
export const SIGNED_VERSION = 2;

/** Shorter keys are refused: HMAC-SHA256's strength needs 32 bytes of key. */
export const MIN_KEY_BYTES = 32;

/** The bytes a version-2 event's `sig` is the HMAC of. */
export function signedBytes(change: PresenceChange): Buffer {
  return Buffer.from(
    `herald.presence.v${SIGNED_VERSION}\n${change.uin}\n${change.online ? '1' : '0'}\n${change.at}`,
    'utf8',
  );
}

/** The version-2 event value for a change, signed with `key`: what a login service publishes (a reference for other languages). */
export function signPresenceEvent(
  key: Buffer,
  change: PresenceChange,
): { v: 2; uin: number; online: boolean; at: number; sig: string } {
  if (!Number.isSafeInteger(change.at) || change.at < 0)
    throw new RangeError(`at must be a non-negative integer of epoch ms (got ${change.at})`);
  return { v: SIGNED_VERSION, uin: change.uin, online: change.online, at: change.at, sig: hmac(key, change) };
}

export type SignatureCheck = 'signed' | 'unsigned' | 'bad_signature';

/** Whether a well-formed event's value carries a valid signature over `change` (its fields as read). */
export function checkSignature(key: Buffer, value: unknown, change: PresenceChange): SignatureCheck {
  const { v, sig } = value as Record<string, unknown>;
  if (sig === undefined && v !== SIGNED_VERSION) return 'unsigned';
  if (v !== SIGNED_VERSION || typeof sig !== 'string' || !/^[0-9a-f]{64}$/.test(sig)) return 'bad_signature';
  const expected = Buffer.from(hmac(key, change), 'hex');
  return timingSafeEqual(expected, Buffer.from(sig, 'hex')) ? 'signed' : 'bad_signature';
}

/** The key held in a key file's bytes: one trailing newline dropped (as `echo` or an editor leaves it), at least MIN_KEY_BYTES. */
export function presenceKey(fileBytes: Buffer, setting = 'presence.hmacKeyFile'): Buffer {
  let end = fileBytes.length;
  if (end > 0 && fileBytes[end - 1] === 0x0a) end--;
  if (end > 0 && fileBytes[end - 1] === 0x0d) end--;
  const key = fileBytes.subarray(0, end);
  if (key.length < MIN_KEY_BYTES)
    throw new ConfigError(
      setting,
      `holds a ${key.length}-byte key: at least ${MIN_KEY_BYTES} bytes are needed (e.g. openssl rand -hex 32)`,
    );
  return Buffer.from(key);
}

function hmac(key: Buffer, change: PresenceChange): string {
  return createHmac('sha256', key).update(signedBytes(change)).digest('hex');
}
