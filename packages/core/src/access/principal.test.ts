import { canSeeAccount, visibleAccountsOf, type Principal } from './principal';

const admin: Principal = { tokenId: 'adm1', name: 'root', role: 'admin', accounts: [] };
const operator: Principal = { tokenId: 'op01', name: 'acme ops', role: 'operator', accounts: ['acme', 'acme_eu'] };

describe('canSeeAccount', () => {
  it('lets an admin see every account', () => {
    for (const account of ['acme', 'globex', 'global']) expect(canSeeAccount(admin, account)).toBe(true);
  });

  it('lets an operator see exactly the accounts of its token', () => {
    expect(canSeeAccount(operator, 'acme')).toBe(true);
    expect(canSeeAccount(operator, 'acme_eu')).toBe(true);
    expect(canSeeAccount(operator, 'globex')).toBe(false);
    // Byte-exact: no prefix, case or padding matches.
    for (const near of ['acm', 'ACME', 'acme ', 'acme_e', '']) expect(canSeeAccount(operator, near)).toBe(false);
  });

  it("never lets an operator see a reserved account (the global blacklist's), even one its token names", () => {
    expect(canSeeAccount({ ...operator, accounts: ['global', 'acme'] }, 'global')).toBe(false);
    expect(canSeeAccount({ ...operator, accounts: ['global', 'acme'] }, 'acme')).toBe(true);
  });

  it('gives an operator without accounts nothing, whatever its accounts would have to be', () => {
    expect(canSeeAccount({ ...operator, accounts: [] }, 'acme')).toBe(false);
  });
});

describe('visibleAccountsOf', () => {
  it("is 'all' for an admin and the token's accounts for an operator", () => {
    expect(visibleAccountsOf(admin)).toBe('all');
    expect(visibleAccountsOf(operator)).toEqual(['acme', 'acme_eu']);
  });
});
