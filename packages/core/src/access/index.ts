/**
 * @module @herald/core/access
 *
 * API access (docs/api.md "Authentication"): who a verified token stands for and what it may
 * see, the token's text form (hashing and randomness live outside core), the records of
 * tokens and the audit log, and per-token rate limiting with time passed in.
 *
 * @example
 *   import { bearerToken, parseToken } from '@herald/core/access';
 *   const token = parseToken(bearerToken(request.headers.authorization));
 */
export { ROLES, ACCOUNT_ID_PATTERN, isAdmin, canSeeAccount, visibleAccountsOf } from './principal';
export type { Role, Principal } from './principal';
export {
  TOKEN_PREFIX,
  TOKEN_ID_PATTERN,
  TOKEN_SECRET_PATTERN,
  TOKEN_HASH_PATTERN,
  parseToken,
  formatToken,
  bearerToken,
} from './token';
export type { ParsedToken } from './token';
export {
  MAX_TOKEN_ACCOUNTS,
  MAX_TOKEN_NAME_CHARS,
  MAX_AUDIT_FIELD_CHARS,
  AUDIT_QUERY_DEFAULT_LIMIT,
  AUDIT_QUERY_MAX_LIMIT,
  checkTokenId,
  checkTokenName,
  checkTokenScope,
  checkNewAccessToken,
  checkRevokeTime,
  checkNewAuditEntry,
  compileAuditQuery,
  principalOfToken,
  auditMatches,
} from './records';
export type {
  AccessToken,
  StoredAccessToken,
  NewAccessToken,
  AuditEntry,
  NewAuditEntry,
  AuditQuery,
  AuditPage,
  CompiledAuditQuery,
} from './records';
export { RateLimiter, takeFromBucket } from './rate-limit';
export type { RateLimit, Bucket, Take } from './rate-limit';
