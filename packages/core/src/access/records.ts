/*
 * The records of the AccessStore port (ports/access-store.ts) and the input
 * checks every adapter shares, like task/validate.ts for the TaskStore. Pure;
 * failures are ValidationError (VALIDATION_FAILED).
 */
import { ValidationError } from '../errors';
import { ACCOUNT_ID_PATTERN, RESERVED_ACCOUNT_IDS, ROLES, type Principal, type Role } from './principal';
import { TOKEN_HASH_PATTERN, TOKEN_ID_PATTERN } from './token';

/** A token as listed: everything but the secret's hash. */
export interface AccessToken {
  id: string;
  name: string;
  role: Role;
  /** Operator: the accounts it acts for (1..MAX_TOKEN_ACCOUNTS). Admin: empty (it sees every account). */
  accounts: string[];
  createdAt: number;
  /** When it was revoked (epoch ms); null while it is valid. */
  revokedAt: number | null;
}

/** A token as the store keeps it: with the SHA-256 of its secret, never the secret. */
export interface StoredAccessToken extends AccessToken {
  hash: string;
}

export interface NewAccessToken {
  id: string;
  name: string;
  role: Role;
  accounts: readonly string[];
  hash: string;
  createdAt: number;
}

/** One audited request: who did what, when, and how it ended. */
export interface AuditEntry {
  /** Increasing in append order; the keyset cursor of listAudit. */
  id: number;
  /** When the request was answered, epoch ms. */
  at: number;
  tokenId: string;
  tokenName: string;
  /** Method and route pattern, e.g. 'POST /api/v1/tasks/:id/pause'. */
  action: string;
  /** The account the request named or touched, when there was one (also when it was refused). */
  accountId: string | null;
  /** What it touched, e.g. 'task:42' or the request path. */
  resource: string | null;
  /** The HTTP status it was answered with. */
  status: number;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'accountId' | 'resource'> & {
  accountId?: string | null;
  resource?: string | null;
};

export interface AuditQuery {
  tokenId?: string;
  accountId?: string;
  /** Keyset cursor: only entries with a smaller id (older). */
  before?: number;
  /** Only entries answered at or after this time (epoch ms). */
  from?: number;
  /** Only entries answered before this time (epoch ms): with `from`, the half-open [from, to). */
  to?: number;
  /** 1..1000, default 100. */
  limit?: number;
}

export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextCursor: number | null;
}

export const MAX_TOKEN_ACCOUNTS = 1000;
export const MAX_TOKEN_NAME_CHARS = 64;
/** Longest audit action, resource, token name or account id kept. */
export const MAX_AUDIT_FIELD_CHARS = 255;
export const AUDIT_QUERY_DEFAULT_LIMIT = 100;
export const AUDIT_QUERY_MAX_LIMIT = 1000;

const isTime = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) >= 0;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/** A token name: 1..64 characters, no control characters. */
export function checkTokenName(name: unknown): string {
  if (typeof name !== 'string' || name.trim() === '' || [...name].length > MAX_TOKEN_NAME_CHARS || CONTROL.test(name)) {
    throw new ValidationError(`token name must be 1..${MAX_TOKEN_NAME_CHARS} characters without control characters`, {
      field: 'name',
    });
  }
  return name;
}

/** The role and accounts of a token: an admin names none, an operator 1..1000 distinct valid account ids. */
export function checkTokenScope(role: unknown, accounts: unknown): { role: Role; accounts: string[] } {
  if (!ROLES.includes(role as Role))
    throw new ValidationError(`role must be one of ${ROLES.join(', ')}`, { field: 'role' });
  if (!Array.isArray(accounts))
    throw new ValidationError('accounts must be a list of account ids', { field: 'accounts' });
  if (role === 'admin') {
    if (accounts.length > 0)
      throw new ValidationError('an admin token sees every account: it names no accounts', { field: 'accounts' });
    return { role, accounts: [] };
  }
  if (accounts.length === 0 || accounts.length > MAX_TOKEN_ACCOUNTS)
    throw new ValidationError(`an operator token names 1..${MAX_TOKEN_ACCOUNTS} accounts`, { field: 'accounts' });
  for (const account of accounts) {
    if (typeof account !== 'string' || !ACCOUNT_ID_PATTERN.test(account))
      throw new ValidationError(`account ids match ${ACCOUNT_ID_PATTERN.source}`, { field: 'accounts' });
    if (RESERVED_ACCOUNT_IDS.includes(account))
      throw new ValidationError(`account id '${account}' is reserved (the global blacklist's)`, { field: 'accounts' });
  }
  if (new Set(accounts).size !== accounts.length)
    throw new ValidationError('accounts must not repeat an id', { field: 'accounts' });
  return { role: role as Role, accounts: [...(accounts as string[])] };
}

export function checkTokenId(id: unknown): string {
  if (typeof id !== 'string' || !TOKEN_ID_PATTERN.test(id))
    throw new ValidationError(`token id must match ${TOKEN_ID_PATTERN.source}`, { field: 'id' });
  return id;
}

/** Checks a NewAccessToken and returns the record to store (a copy). */
export function checkNewAccessToken(input: NewAccessToken): StoredAccessToken {
  if (input === null || typeof input !== 'object') throw new ValidationError('a new token must be an object');
  const id = checkTokenId(input.id);
  const name = checkTokenName(input.name);
  const { role, accounts } = checkTokenScope(input.role, input.accounts);
  if (typeof input.hash !== 'string' || !TOKEN_HASH_PATTERN.test(input.hash))
    throw new ValidationError('hash must be the SHA-256 of the secret, 64 lowercase hex digits', { field: 'hash' });
  if (!isTime(input.createdAt))
    throw new ValidationError('createdAt must be epoch milliseconds (a non-negative safe integer)', {
      field: 'createdAt',
    });
  return { id, name, role, accounts, hash: input.hash, createdAt: input.createdAt, revokedAt: null };
}

export function checkRevokeTime(now: unknown): number {
  if (!isTime(now))
    throw new ValidationError('now must be epoch milliseconds (a non-negative safe integer)', { field: 'now' });
  return now;
}

function auditText(field: string, value: unknown, optional: boolean): string | null {
  if (optional && (value === undefined || value === null)) return null;
  if (typeof value !== 'string' || value === '' || [...value].length > MAX_AUDIT_FIELD_CHARS) {
    throw new ValidationError(`${field} must be a string of 1..${MAX_AUDIT_FIELD_CHARS} characters`, { field });
  }
  return value;
}

/** Checks a NewAuditEntry and returns the entry to store without its id. */
export function checkNewAuditEntry(input: NewAuditEntry): Omit<AuditEntry, 'id'> {
  if (input === null || typeof input !== 'object') throw new ValidationError('an audit entry must be an object');
  if (!isTime(input.at))
    throw new ValidationError('at must be epoch milliseconds (a non-negative safe integer)', { field: 'at' });
  if (!Number.isInteger(input.status) || input.status < 100 || input.status > 599)
    throw new ValidationError('status must be an HTTP status (100..599)', { field: 'status' });
  return {
    at: input.at,
    tokenId: checkTokenId(input.tokenId),
    tokenName: auditText('tokenName', input.tokenName, false)!,
    action: auditText('action', input.action, false)!,
    accountId: auditText('accountId', input.accountId, true),
    resource: auditText('resource', input.resource, true),
    status: input.status,
  };
}

export interface CompiledAuditQuery {
  tokenId: string | undefined;
  accountId: string | undefined;
  /** Entries with id < before; Number.MAX_SAFE_INTEGER when the query named none. */
  before: number;
  /** Entries with from <= at < to; 0 and Number.MAX_SAFE_INTEGER when the query named none. */
  from: number;
  to: number;
  limit: number;
}

export function compileAuditQuery(query: AuditQuery = {}): CompiledAuditQuery {
  if (query === null || typeof query !== 'object') throw new ValidationError('an audit query must be an object');
  const { tokenId, accountId, before, from, to, limit = AUDIT_QUERY_DEFAULT_LIMIT } = query;
  if (tokenId !== undefined) checkTokenId(tokenId);
  if (
    accountId !== undefined &&
    (typeof accountId !== 'string' || accountId === '' || accountId.length > MAX_AUDIT_FIELD_CHARS)
  ) {
    throw new ValidationError('accountId must be a non-empty string', { field: 'accountId' });
  }
  if (before !== undefined && (!Number.isSafeInteger(before) || before < 1))
    throw new ValidationError('before must be a positive integer (an audit entry id)', { field: 'before' });
  if (!Number.isInteger(limit) || limit < 1 || limit > AUDIT_QUERY_MAX_LIMIT)
    throw new ValidationError(`limit must be an integer in 1..${AUDIT_QUERY_MAX_LIMIT}`, { field: 'limit' });
  for (const [field, time] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (time !== undefined && !isTime(time))
      throw new ValidationError(`${field} must be a time in epoch milliseconds`, { field });
  }
  if (from !== undefined && to !== undefined && from > to)
    throw new ValidationError('from must not be after to', { field: 'from' });
  return {
    tokenId,
    accountId,
    before: before ?? Number.MAX_SAFE_INTEGER,
    from: from ?? 0,
    to: to ?? Number.MAX_SAFE_INTEGER,
    limit,
  };
}

/** The principal a valid (unrevoked) token stands for. */
export function principalOfToken(token: AccessToken): Principal {
  return { tokenId: token.id, name: token.name, role: token.role, accounts: token.accounts };
}

/** Whether an audit entry matches a compiled query's filters (for adapters that filter while scanning). */
export function auditMatches(entry: AuditEntry, query: CompiledAuditQuery): boolean {
  return (
    (query.tokenId === undefined || entry.tokenId === query.tokenId) &&
    (query.accountId === undefined || entry.accountId === query.accountId) &&
    entry.at >= query.from &&
    entry.at < query.to
  );
}
