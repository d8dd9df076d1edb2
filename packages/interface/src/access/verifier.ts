import { parseToken, principalOfToken, type Principal, type StoredAccessToken } from '@herald/core/access';
import type { AccessStore } from '@herald/core/ports';
import { hashTokenSecret, sameHash } from './token-crypto';

interface Cached {
  token: StoredAccessToken;
  /** Clock ms after which the store is asked again. */
  until: number;
}

/** Cached records kept at most; past it, expired ones go first, then everything. */
const MAX_CACHED = 10_000;

/**
 * Turns a presented token into the principal it stands for, or undefined.
 *
 * The store is asked for the token's record (by its public id) and the
 * presented secret's SHA-256 is compared in constant time with the stored
 * one. A record read from the store is trusted for `cacheMs`, so a token
 * revoked through another interface process stops working here at most
 * `cacheMs` later; `forget` (called by this process's own revoke) makes it
 * stop at once. Unknown ids are not cached: each try asks the store.
 */
export class TokenVerifier {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly store: AccessStore,
    private readonly cacheMs: number,
  ) {}

  async verify(raw: string, now: number): Promise<Principal | undefined> {
    const parsed = parseToken(raw);
    if (parsed === undefined) return undefined;
    const token = await this.record(parsed.tokenId, now);
    if (token === undefined || token.revokedAt !== null) return undefined;
    return sameHash(token.hash, hashTokenSecret(parsed.secret)) ? principalOfToken(token) : undefined;
  }

  /** Drops a token's cached record: its next use asks the store. */
  forget(tokenId: string): void {
    this.cache.delete(tokenId);
  }

  private async record(tokenId: string, now: number): Promise<StoredAccessToken | undefined> {
    const cached = this.cache.get(tokenId);
    if (cached !== undefined && cached.until > now) return cached.token;
    const token = await this.store.findToken(tokenId);
    if (token === undefined || this.cacheMs === 0) {
      this.cache.delete(tokenId);
      return token;
    }
    if (this.cache.size >= MAX_CACHED) this.prune(now);
    this.cache.set(tokenId, { token, until: now + this.cacheMs });
    return token;
  }

  private prune(now: number): void {
    for (const [id, entry] of this.cache) if (entry.until <= now) this.cache.delete(id);
    if (this.cache.size >= MAX_CACHED) this.cache.clear();
  }
}
