import { ErrorCodes, HeraldError } from '../errors';
import {
  checkNewAccessToken,
  checkNewAuditEntry,
  checkTokenScope,
  compileAuditQuery,
  principalOfToken,
  type NewAccessToken,
} from './records';

const HASH = 'a'.repeat(64);
const token: NewAccessToken = {
  id: 'op01',
  name: 'acme ops',
  role: 'operator',
  accounts: ['acme'],
  hash: HASH,
  createdAt: 1000,
};

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof HeraldError ? error.code : 'not a HeraldError';
  }
  return undefined;
}

describe('checkNewAccessToken', () => {
  it('returns the record to store, valid and unrevoked, with its own copy of the accounts', () => {
    const accounts = ['acme', 'globex'];
    const record = checkNewAccessToken({ ...token, accounts });
    expect(record).toEqual({ ...token, accounts, revokedAt: null });
    accounts.push('mutated');
    expect(record.accounts).toEqual(['acme', 'globex']);
  });

  it.each<[string, Partial<NewAccessToken> | Record<string, unknown>]>([
    ['a malformed id', { id: 'A!' }],
    ['an empty name', { name: ' ' }],
    ['a name with a newline', { name: 'a\nb' }],
    ['a name too long', { name: 'x'.repeat(65) }],
    ['an unknown role', { role: 'root' }],
    ['an admin naming accounts', { role: 'admin', accounts: ['acme'] }],
    ['an operator with no account', { accounts: [] }],
    ['a bad account id', { accounts: ['Acme'] }],
    ['a repeated account', { accounts: ['acme', 'acme'] }],
    ['accounts that are no list', { accounts: 'acme' }],
    ['a hash that is not SHA-256 hex', { hash: 'A'.repeat(64) }],
    ['a secret passed as hash', { hash: 'Abcdefghijklmnopqrstuvwxyz0123456789_-ABCDE' }],
    ['a negative createdAt', { createdAt: -1 }],
    ['a fractional createdAt', { createdAt: 1.5 }],
  ])('refuses %s with VALIDATION_FAILED', (_name, change) => {
    expect(code(() => checkNewAccessToken({ ...token, ...change } as NewAccessToken))).toBe(
      ErrorCodes.VALIDATION_FAILED,
    );
  });

  it('gives an admin no accounts', () => {
    expect(checkTokenScope('admin', [])).toEqual({ role: 'admin', accounts: [] });
  });

  it("refuses an operator token for the reserved account 'global' (the global blacklist's)", () => {
    expect(code(() => checkTokenScope('operator', ['acme', 'global']))).toBe(ErrorCodes.VALIDATION_FAILED);
  });
});

describe('checkNewAuditEntry', () => {
  const entry = { at: 5, tokenId: 'op01', tokenName: 'acme ops', action: 'POST /api/v1/tasks', status: 201 };

  it('fills absent accountId and resource with null', () => {
    expect(checkNewAuditEntry(entry)).toEqual({ ...entry, accountId: null, resource: null });
    expect(checkNewAuditEntry({ ...entry, accountId: 'acme', resource: 'task:1' })).toEqual({
      ...entry,
      accountId: 'acme',
      resource: 'task:1',
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['a status outside 100..599', { status: 99 }],
    ['a fractional status', { status: 200.5 }],
    ['a bad token id', { tokenId: 'NO' }],
    ['an empty action', { action: '' }],
    ['an action too long', { action: 'x'.repeat(256) }],
    ['an empty resource', { resource: '' }],
    ['a time that is no integer', { at: 'now' }],
  ])('refuses %s with VALIDATION_FAILED', (_name, change) => {
    expect(code(() => checkNewAuditEntry({ ...entry, ...change } as never))).toBe(ErrorCodes.VALIDATION_FAILED);
  });
});

describe('compileAuditQuery', () => {
  it('defaults to the newest 100 entries, unfiltered, at any time', () => {
    expect(compileAuditQuery()).toEqual({
      tokenId: undefined,
      accountId: undefined,
      before: Number.MAX_SAFE_INTEGER,
      from: 0,
      to: Number.MAX_SAFE_INTEGER,
      limit: 100,
    });
  });

  it.each<[string, Record<string, unknown>]>([
    ['limit 0', { limit: 0 }],
    ['limit 1001', { limit: 1001 }],
    ['before 0', { before: 0 }],
    ['a bad token id', { tokenId: 'NO' }],
    ['an empty account', { accountId: '' }],
  ])('refuses %s with VALIDATION_FAILED', (_name, query) => {
    expect(code(() => compileAuditQuery(query))).toBe(ErrorCodes.VALIDATION_FAILED);
  });
});

describe('principalOfToken', () => {
  it('is the token without its times', () => {
    expect(
      principalOfToken({ id: 'op01', name: 'n', role: 'operator', accounts: ['acme'], createdAt: 1, revokedAt: null }),
    ).toEqual({
      tokenId: 'op01',
      name: 'n',
      role: 'operator',
      accounts: ['acme'],
    });
  });
});
