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

export function isAdmin(principal: Principal): boolean {
  return principal.role === 'admin';
}

/** Whether `principal` may see (and so act on) anything of account `accountId`. */
export function canSeeAccount(principal: Principal, accountId: string): boolean {
  return principal.role === 'admin' || principal.accounts.includes(accountId);
}

/** The accounts whose data `principal` may see: 'all' for an admin. */
export function visibleAccountsOf(principal: Principal): readonly string[] | 'all' {
  return principal.role === 'admin' ? 'all' : principal.accounts;
}
