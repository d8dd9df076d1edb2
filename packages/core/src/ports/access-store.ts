import type {
  AccessToken,
  AuditEntry,
  AuditPage,
  AuditQuery,
  NewAccessToken,
  NewAuditEntry,
  StoredAccessToken,
} from '../access/records';

/**
 * The access store: API tokens and the audit log (docs/api.md,
 * "Authentication"). It owns its connection; callers see only these methods.
 *
 * Contract, checked by the AccessStore conformance suite for every adapter:
 * - Secrets never reach the store. A token is kept with the SHA-256 of its
 *   secret (`hash`, computed by the caller: core is pure); only `findToken`
 *   returns the hash, because verifying a presented token needs it.
 *   `listTokens` and every other answer leave it out, so a listing can be
 *   shown as it is.
 * - `createToken` checks its input with core `checkNewAccessToken`
 *   (VALIDATION_FAILED) and fails with TOKEN_EXISTS when the id is taken
 *   (revoked tokens keep their ids: an id is never reused).
 * - `revokeToken` sets `revokedAt` once; revoking a revoked token changes
 *   nothing and answers the token as it is. An unknown id is TOKEN_NOT_FOUND.
 *   Tokens are never deleted: the audit log names them.
 * - `appendAudit` checks its input with core `checkNewAuditEntry` and gives
 *   the entry an id larger than every id handed out before, so `listAudit`
 *   pages newest first by a keyset cursor (`before`): `nextCursor` is the
 *   last id of the page, null on the last page. Filters (tokenId, accountId)
 *   match exactly.
 * - Times are passed in; adapters never read a clock.
 * - After `close`, every call fails with STORE_CLOSED.
 */
export interface AccessStore {
  createToken(token: NewAccessToken): Promise<AccessToken>;
  /** The token with its hash, revoked or not; undefined for an unknown (or malformed) id. */
  findToken(id: string): Promise<StoredAccessToken | undefined>;
  /** Every token, revoked ones included, oldest first (by createdAt, then id); never with hashes. */
  listTokens(): Promise<AccessToken[]>;
  revokeToken(id: string, now: number): Promise<AccessToken>;

  appendAudit(entry: NewAuditEntry): Promise<AuditEntry>;
  listAudit(query?: AuditQuery): Promise<AuditPage>;

  close(): Promise<void>;
}
