/**
 * The API token's text form and the rules for its parts. A token is
 *
 *   hrd_<tokenId>_<secret>
 *
 * `tokenId` (4..32 of [a-z0-9]) is public: it names the token in listings and
 * in the audit log, and finds its record. `secret` (32..128 of [A-Za-z0-9_-],
 * base64url; made from 32 random bytes it is 43 characters) is shown once,
 * when the token is made, and never stored: the store keeps only the SHA-256
 * of its UTF-8 bytes as 64 lowercase hex digits.
 *
 * Pure: randomness and SHA-256 live outside core (the interface tier's
 * token-crypto.ts); core only parses, formats and checks shapes.
 */

export const TOKEN_PREFIX = 'hrd_';
export const TOKEN_ID_PATTERN = /^[a-z0-9]{4,32}$/;
export const TOKEN_SECRET_PATTERN = /^[A-Za-z0-9_-]{32,128}$/;
/** What the store keeps instead of the secret: SHA-256, lowercase hex. */
export const TOKEN_HASH_PATTERN = /^[0-9a-f]{64}$/;

export interface ParsedToken {
  tokenId: string;
  secret: string;
}

/** The token's parts, or undefined when `raw` is not a well-formed token. Never throws: any string may arrive in a header. */
export function parseToken(raw: unknown): ParsedToken | undefined {
  if (typeof raw !== 'string' || !raw.startsWith(TOKEN_PREFIX) || raw.length > 200) return undefined;
  const rest = raw.slice(TOKEN_PREFIX.length);
  const cut = rest.indexOf('_');
  if (cut < 0) return undefined;
  const tokenId = rest.slice(0, cut);
  const secret = rest.slice(cut + 1);
  return TOKEN_ID_PATTERN.test(tokenId) && TOKEN_SECRET_PATTERN.test(secret) ? { tokenId, secret } : undefined;
}

/** The text form of a token. Throws a plain Error for malformed parts: callers pass parts they generated. */
export function formatToken(tokenId: string, secret: string): string {
  if (!TOKEN_ID_PATTERN.test(tokenId) || !TOKEN_SECRET_PATTERN.test(secret))
    throw new Error('formatToken: malformed token id or secret');
  return `${TOKEN_PREFIX}${tokenId}_${secret}`;
}

/** The `Authorization` header's token: `Bearer <token>` (scheme case-insensitive), else undefined. */
export function bearerToken(header: unknown): string | undefined {
  if (typeof header !== 'string') return undefined;
  const match = /^Bearer +(\S+) *$/i.exec(header);
  return match === null ? undefined : match[1];
}
