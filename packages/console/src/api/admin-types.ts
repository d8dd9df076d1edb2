/**
 * The admin-only API's shapes (docs/api.md, "Tokens, the caller, the audit
 * log" and "Accounts"): kept apart from types.ts so the administration pages
 * add to the console without touching what the other pages share.
 */

export interface TokenRecord {
  id: string;
  name: string;
  role: 'admin' | 'operator';
  accounts: string[];
  createdAt: number;
  revokedAt: number | null;
}

/** POST /api/v1/tokens answers the record and, this once, the secret. */
export interface CreatedToken extends TokenRecord {
  token: string;
}

export interface TokenPage {
  tokens: TokenRecord[];
  nextCursor: string | null;
}

export interface AuditEntry {
  id: number;
  at: number;
  tokenId: string;
  tokenName: string;
  action: string;
  accountId: string | null;
  resource: string | null;
  status: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  nextCursor: number | null;
}

export interface Limits {
  dailyBroadcasts: number;
  dailyRecipients: number;
  minIntervalMs: number;
  maxSpeed: number;
}

export interface AccountLimits {
  accountId: string;
  limits: Limits;
  base: Limits;
  override: Partial<Limits> & { confirmAbove?: number; confirmWithinMs?: number };
  confirmation: { confirmAbove: number; confirmWithinMs: number };
  clickThroughRate: number | null;
  factor: number;
  usage: { broadcasts: number; recipients: number };
  updatedAt: number | null;
}

/** GET /api/v1/blacklists/global and GET /api/v1/accounts/:accountId/blacklist. */
export interface Blacklist {
  scope: 'global' | 'account';
  accountId: string | null;
  listId: string;
  count: number;
  bytes: number;
  checksum: number | null;
  /** When it was last replaced or cleared; null: never. */
  updatedAt: number | null;
}
