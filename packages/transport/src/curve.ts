/**
 * CURVE keys (ZMQ RFC 26) as Herald handles them: Z85 text (ZMQ RFC 32), 40
 * characters for a 32-byte Curve25519 key, the form `herald keys` writes and
 * zeromq's socket options take. Validation names the setting a key came from
 * and never echoes the key, since it may be a secret one.
 */
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { ConfigError } from '@herald/core';
import * as zmq from 'zeromq';

/** Options of a binding (server) socket: its own keypair and the client public keys it admits. */
export interface CurveServerOptions {
  serverSecretKey: string;
  /** Checked against serverSecretKey at start, so a mismatched key file fails there and not at every handshake. */
  serverPublicKey: string;
  /** Z85 public keys of the clients admitted; every other client is refused by the ZAP handler. */
  allowedClientKeys: string[];
}

/** Options of a connecting (client) socket: the server's public key and its own keypair. */
export interface CurveClientOptions {
  serverPublicKey: string;
  publicKey: string;
  secretKey: string;
}

export interface CurveKeyPair {
  publicKey: string;
  secretKey: string;
}

/** Characters in a Z85 CURVE key. */
export const Z85_KEY_LENGTH = 40;
const KEY_BYTES = 32;
const Z85_ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const Z85_VALUE = new Map([...Z85_ALPHABET].map((c, i) => [c, i]));
/** DER prefix of a PKCS#8 X25519 private key; the 32 key bytes follow. */
const X25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');

/** A fresh CURVE keypair from libzmq (libsodium), both keys in Z85. */
export function generateKeyPair(): CurveKeyPair {
  const { publicKey, secretKey } = zmq.curveKeyPair();
  return { publicKey, secretKey };
}

/** Z85-encodes bytes whose length is a multiple of 4 (RFC 32). */
export function z85Encode(bytes: Uint8Array): string {
  if (bytes.length % 4 !== 0) throw new RangeError(`z85: ${bytes.length} bytes is not a multiple of 4`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = '';
  for (let i = 0; i < bytes.length; i += 4) {
    let value = view.getUint32(i);
    const group: string[] = [];
    for (let j = 0; j < 5; j += 1) {
      group.push(Z85_ALPHABET[value % 85]!);
      value = Math.floor(value / 85);
    }
    text += group.reverse().join('');
  }
  return text;
}

/** The bytes of a Z85 string, or undefined if it is not valid Z85 (length, alphabet, a group above 2^32 - 1). */
export function z85Decode(text: string): Buffer | undefined {
  if (text.length % 5 !== 0) return undefined;
  const bytes = Buffer.alloc((text.length / 5) * 4);
  for (let i = 0; i < text.length; i += 5) {
    let value = 0;
    for (let j = 0; j < 5; j += 1) {
      const digit = Z85_VALUE.get(text[i + j]!);
      if (digit === undefined) return undefined;
      value = value * 85 + digit;
    }
    if (value > 0xffff_ffff) return undefined;
    bytes.writeUInt32BE(value, (i / 5) * 4);
  }
  return bytes;
}

/** Returns `value` if it is a Z85 CURVE key; otherwise throws ConfigError naming `setting`. */
export function checkCurveKey(setting: string, value: unknown): string {
  if (typeof value !== 'string')
    throw new ConfigError(setting, `must be a ${Z85_KEY_LENGTH}-character Z85 CURVE key (got ${typeof value})`);
  if (value.length !== Z85_KEY_LENGTH) {
    throw new ConfigError(
      setting,
      `must be a ${Z85_KEY_LENGTH}-character Z85 CURVE key (got ${value.length} characters)`,
    );
  }
  if (z85Decode(value) === undefined)
    throw new ConfigError(setting, 'is not valid Z85 (a character outside the alphabet, or a group out of range)');
  return value;
}

/** The public key that belongs to a Z85 secret key (X25519, as libsodium's crypto_box). */
export function publicKeyOf(secretKey: string): string {
  const secret = z85Decode(secretKey);
  if (secret === undefined || secret.length !== KEY_BYTES) throw new RangeError('publicKeyOf: not a Z85 CURVE key');
  const privateKey = createPrivateKey({
    key: Buffer.concat([X25519_PKCS8_PREFIX, secret]),
    format: 'der',
    type: 'pkcs8',
  });
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  return z85Encode(Buffer.from(x!, 'base64url'));
}

/** Checks both keys, then that they are one pair; a mismatch is reported against `publicSetting`. */
export function checkCurveKeyPair(
  publicSetting: string,
  publicKey: unknown,
  secretSetting: string,
  secretKey: unknown,
): CurveKeyPair {
  const pair = {
    publicKey: checkCurveKey(publicSetting, publicKey),
    secretKey: checkCurveKey(secretSetting, secretKey),
  };
  if (publicKeyOf(pair.secretKey) !== pair.publicKey)
    throw new ConfigError(publicSetting, `is not the public key of ${secretSetting}`);
  return pair;
}

/** Validates a server's CURVE options; `prefix` is the setting they came from (e.g. 'transport.executor-1.curve'). */
export function checkCurveServerOptions(prefix: string, options: CurveServerOptions): CurveServerOptions {
  const { publicKey, secretKey } = checkCurveKeyPair(
    `${prefix}.serverPublicKey`,
    options.serverPublicKey,
    `${prefix}.serverSecretKey`,
    options.serverSecretKey,
  );
  const keys: unknown = options.allowedClientKeys;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new ConfigError(`${prefix}.allowedClientKeys`, 'needs at least one client public key');
  const allowedClientKeys = keys.map((key, i) => checkCurveKey(`${prefix}.allowedClientKeys[${i}]`, key));
  return { serverPublicKey: publicKey, serverSecretKey: secretKey, allowedClientKeys };
}

/** Validates a client's CURVE options; `prefix` is the setting they came from. */
export function checkCurveClientOptions(prefix: string, options: CurveClientOptions): CurveClientOptions {
  const serverPublicKey = checkCurveKey(`${prefix}.serverPublicKey`, options.serverPublicKey);
  const { publicKey, secretKey } = checkCurveKeyPair(
    `${prefix}.publicKey`,
    options.publicKey,
    `${prefix}.secretKey`,
    options.secretKey,
  );
  return { serverPublicKey, publicKey, secretKey };
}

/**
 * CURVE runs in the ZMTP handshake, which inproc:// connections skip: a CURVE
 * socket there would admit anyone. Throws ConfigError naming `setting`.
 */
export function checkCurveEndpoint(setting: string, endpoint: string): void {
  if (!/^(tcp|ipc):\/\//.test(endpoint)) {
    throw new ConfigError(
      setting,
      `CURVE needs tcp:// or ipc:// (got ${endpoint}); inproc:// skips the security handshake`,
    );
  }
}
