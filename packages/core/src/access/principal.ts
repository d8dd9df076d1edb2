/**
 * Who is calling the API, as the interface tier's access guard established it
 * from a verified token (docs/api.md, "Authentication"). Pure: the guard and
 * every route decide with these functions, so the rule "an operator sees only
 * its own accounts" lives in one place.
 */

export const ROLES = ['admin', 'operator'] as const;

/**
 * 'admin': every account, and the admin endpoints (tokens, audit, cluster,
 * the global blacklist). 'operator': only the accounts its token names.
 */
export type Role = (typeof ROLES)[number];

export interface Principal {
  /** The token's public id (the part of the token before the secret). */
  tokenId: string;
  /** The token's name, as the admin who made it called it; written to the audit log. */
  name: string;
  role: Role;
  /** The accounts an operator acts for; empty for an admin, who sees every account. */
  accounts: readonly string[];
}

/** Account ids, as the HTTP API accepts them. */
export const ACCOUNT_ID_PATTERN = /^[a-z0-9_]{1,64}$/;

/**
 * Account ids Herald keeps for itself: the global blacklist is stored as a
 * list of account `global`. No operator token may name one, and no operator
 * sees one, so an operator can never read or broadcast to the global
 * blacklist however its token was made.
 */
export const RESERVED_ACCOUNT_IDS: readonly string[] = ['global'];

export function isAdmin(principal: Principal): boolean {
  return principal.role === 'admin';
}

/** Whether `principal` may see (and so act on) anything of account `accountId`. */
export function canSeeAccount(principal: Principal, accountId: string): boolean {
  if (principal.role === 'admin') return true;
  return !RESERVED_ACCOUNT_IDS.includes(accountId) && principal.accounts.includes(accountId);
}

/** The accounts whose data `principal` may see: 'all' for an admin. */
export function visibleAccountsOf(principal: Principal): readonly string[] | 'all' {
  return principal.role === 'admin' ? 'all' : principal.accounts;
}
