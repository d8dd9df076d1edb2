import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { formatToken } from '@herald/core/access';

/**
 * The I/O half of API tokens (core's access/token.ts holds the pure half):
 * randomness for new tokens and the SHA-256 the store keeps instead of the
 * secret. A plain SHA-256 is enough here: the secret is 32 random bytes, not
 * a password, so there is nothing for a slow hash to protect against.
 */

/** SHA-256 of the secret's UTF-8 bytes, 64 lowercase hex digits: what the AccessStore keeps. */
export function hashTokenSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two hashes, so response times say nothing about how much of a guess matched. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

export interface NewTokenText {
  tokenId: string;
  secret: string;
  /** hrd_<tokenId>_<secret>: shown once, never stored. */
  token: string;
  /** hashTokenSecret(secret). */
  hash: string;
}

/** A fresh token: a 16-hex-digit id (64 random bits) and a 43-character base64url secret (256 random bits). */
export function newTokenText(): NewTokenText {
  const tokenId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { tokenId, secret, token: formatToken(tokenId, secret), hash: hashTokenSecret(secret) };
}
