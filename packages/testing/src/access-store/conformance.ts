import type { AccessStore } from '@herald/core/ports';
import type { AuditEntry, NewAccessToken, NewAuditEntry } from '@herald/core/access';
import { rejectsWithCode } from '../assertions';
import { useFreshStore, type StoreFactory } from '../store-factory';

const HASH_A = 'a'.repeat(64);
const HASH_B = '0123456789abcdef'.repeat(4);

const operator = (over: Partial<NewAccessToken> = {}): NewAccessToken => ({
  id: 'op01',
  name: 'acme ops',
  role: 'operator',
  accounts: ['acme', 'acme_eu'],
  hash: HASH_A,
  createdAt: 1000,
  ...over,
});
const admin = (over: Partial<NewAccessToken> = {}): NewAccessToken => ({
  id: 'adm1',
  name: 'root',
  role: 'admin',
  accounts: [],
  hash: HASH_B,
  createdAt: 2000,
  ...over,
});
const audit = (over: Partial<NewAuditEntry> = {}): NewAuditEntry => ({
  at: 5000,
  tokenId: 'op01',
  tokenName: 'acme ops',
  action: 'POST /api/v1/tasks',
  accountId: 'acme',
  resource: 'task:1',
  status: 201,
  ...over,
});

/**
 * The AccessStore contract (core ports/access-store.ts) as tests. Every
 * adapter's test file calls this once with a factory that opens a fresh,
 * empty store; each test gets its own.
 *
 * @example
 *   accessStoreConformance('LevelAccessStore', async () => {
 *     const dir = await makeTempDir('herald-access-');
 *     return { store: await LevelAccessStore.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function accessStoreConformance(name: string, open: StoreFactory<AccessStore>): void {
  describe(`AccessStore conformance: ${name}`, () => {
    const store = useFreshStore(open);

    describe('tokens', () => {
      it('creates a token and answers it without its hash; findToken answers it with the hash', async () => {
        const created = await store().createToken(operator());
        expect(created).toStrictEqual({
          id: 'op01',
          name: 'acme ops',
          role: 'operator',
          accounts: ['acme', 'acme_eu'],
          createdAt: 1000,
          revokedAt: null,
        });
        expect(await store().findToken('op01')).toStrictEqual({ ...created, hash: HASH_A });
        await store().createToken(admin());
        expect(await store().findToken('adm1')).toStrictEqual({
          id: 'adm1',
          name: 'root',
          role: 'admin',
          accounts: [],
          createdAt: 2000,
          revokedAt: null,
          hash: HASH_B,
        });
      });

      it('answers undefined for an unknown or malformed id', async () => {
        await store().createToken(operator());
        for (const id of ['op02', 'OP01', 'op01 ', '', 'x'.repeat(300), "op01' OR '1'='1"])
          expect(await store().findToken(id)).toBeUndefined();
      });

      it('lists every token oldest first (then by id), revoked ones too, never with hashes', async () => {
        await store().createToken(admin({ id: 'zzzz', createdAt: 10 }));
        await store().createToken(operator({ id: 'bbbb', createdAt: 20 }));
        await store().createToken(operator({ id: 'aaaa', createdAt: 20 }));
        await store().revokeToken('zzzz', 30);
        const tokens = await store().listTokens();
        expect(tokens.map((t) => t.id)).toEqual(['zzzz', 'aaaa', 'bbbb']);
        expect(tokens[0]!.revokedAt).toBe(30);
        for (const token of tokens)
          expect(Object.keys(token).sort()).toEqual(['accounts', 'createdAt', 'id', 'name', 'revokedAt', 'role']);
        expect(JSON.stringify(tokens)).not.toContain(HASH_A);
      });

      it('is empty when no token was made', async () => {
        expect(await store().listTokens()).toEqual([]);
      });

      it('refuses a taken id with TOKEN_EXISTS, also when the token was revoked, and keeps the first token', async () => {
        await store().createToken(operator());
        await rejectsWithCode(store().createToken(admin({ id: 'op01' })), 'TOKEN_EXISTS');
        await store().revokeToken('op01', 3000);
        await rejectsWithCode(store().createToken(operator({ hash: HASH_B })), 'TOKEN_EXISTS');
        expect(await store().findToken('op01')).toMatchObject({ role: 'operator', hash: HASH_A, revokedAt: 3000 });
      });

      it('lets exactly one of concurrent creates of one id win', async () => {
        const results = await Promise.allSettled(
          Array.from({ length: 5 }, (_, i) => store().createToken(operator({ name: `try ${i}` }))),
        );
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        expect((await store().listTokens()).map((t) => t.id)).toEqual(['op01']);
      });

      it.each<[string, Partial<NewAccessToken>]>([
        ['a malformed id', { id: 'Op-1' }],
        ['an empty name', { name: '' }],
        ['an unknown role', { role: 'root' as never }],
        ['an admin naming accounts', { role: 'admin' }],
        ['an operator without accounts', { accounts: [] }],
        ['a malformed account', { accounts: ['ACME'] }],
        ['a hash that is no SHA-256 hex', { hash: 'secret' }],
        ['a time that is no integer', { createdAt: 1.5 }],
      ])('refuses %s with VALIDATION_FAILED and stores nothing', async (_name, change) => {
        await rejectsWithCode(store().createToken(operator(change)), 'VALIDATION_FAILED');
        expect(await store().listTokens()).toEqual([]);
      });

      it('keeps names and account lists exactly as given', async () => {
        const name = 'Ops – 東京 «night» 🚀';
        const accounts = Array.from({ length: 1000 }, (_, i) => `acct_${i}`);
        await store().createToken(operator({ name, accounts }));
        expect(await store().findToken('op01')).toMatchObject({ name, accounts });
      });

      it('revokes once: revokedAt is set, a second revoke keeps the first time, an unknown id is TOKEN_NOT_FOUND', async () => {
        await store().createToken(operator());
        expect(await store().revokeToken('op01', 4000)).toStrictEqual({
          id: 'op01',
          name: 'acme ops',
          role: 'operator',
          accounts: ['acme', 'acme_eu'],
          createdAt: 1000,
          revokedAt: 4000,
        });
        expect(await store().revokeToken('op01', 5000)).toMatchObject({ revokedAt: 4000 });
        expect(await store().findToken('op01')).toMatchObject({ revokedAt: 4000, hash: HASH_A });
        await rejectsWithCode(store().revokeToken('nope', 4000), 'TOKEN_NOT_FOUND');
        await rejectsWithCode(store().revokeToken('NOPE!', 4000), 'TOKEN_NOT_FOUND');
        await rejectsWithCode(store().revokeToken('op01', -1), 'VALIDATION_FAILED');
      });
    });

    describe('audit log', () => {
      /** Every entry the query's pages give, following nextCursor. */
      async function allPages(query: {
        tokenId?: string;
        accountId?: string;
        from?: number;
        to?: number;
        limit: number;
      }): Promise<AuditEntry[]> {
        const entries: AuditEntry[] = [];
        let before: number | undefined;
        for (let pages = 0; pages < 100; pages++) {
          const page = await store().listAudit({ ...query, ...(before === undefined ? {} : { before }) });
          expect(page.entries.length).toBeLessThanOrEqual(query.limit);
          entries.push(...page.entries);
          if (page.nextCursor === null) return entries;
          expect(page.entries).toHaveLength(query.limit);
          expect(page.nextCursor).toBe(page.entries[page.entries.length - 1]!.id);
          before = page.nextCursor;
        }
        throw new Error('listAudit never reached its last page');
      }

      it('appends with increasing ids and answers the entry, absent account and resource as null', async () => {
        const first = await store().appendAudit(audit());
        const second = await store().appendAudit({
          at: 6000,
          tokenId: 'adm1',
          tokenName: 'root',
          action: 'DELETE /api/v1/tokens/:id',
          status: 200,
        });
        expect(first).toStrictEqual({
          id: first.id,
          at: 5000,
          tokenId: 'op01',
          tokenName: 'acme ops',
          action: 'POST /api/v1/tasks',
          accountId: 'acme',
          resource: 'task:1',
          status: 201,
        });
        expect(second).toStrictEqual({
          id: second.id,
          at: 6000,
          tokenId: 'adm1',
          tokenName: 'root',
          action: 'DELETE /api/v1/tokens/:id',
          accountId: null,
          resource: null,
          status: 200,
        });
        expect(first.id).toBeGreaterThan(0);
        expect(second.id).toBeGreaterThan(first.id);
      });

      it('lists newest first, one page by default', async () => {
        const made = [];
        for (let i = 0; i < 5; i++) made.push(await store().appendAudit(audit({ at: 5000 + i, status: 200 + i })));
        const page = await store().listAudit();
        expect(page).toStrictEqual({ entries: [...made].reverse(), nextCursor: null });
        expect(await store().listAudit({ limit: 2 })).toStrictEqual({
          entries: [made[4], made[3]],
          nextCursor: made[3]!.id,
        });
        expect((await store().listAudit({ before: made[3]!.id, limit: 2 })).entries).toStrictEqual([made[2], made[1]]);
      });

      it('is empty when nothing was appended', async () => {
        expect(await store().listAudit()).toStrictEqual({ entries: [], nextCursor: null });
      });

      it('pages through every entry exactly once, filtered by token, by account, by both', async () => {
        const made: AuditEntry[] = [];
        for (let i = 0; i < 23; i++) {
          made.push(
            await store().appendAudit(
              audit({
                tokenId: i % 2 === 0 ? 'op01' : 'op02',
                accountId: i % 3 === 0 ? null : i % 3 === 1 ? 'acme' : 'globex',
                at: 7000 + i,
              }),
            ),
          );
        }
        const newestFirst = [...made].reverse();
        expect(await allPages({ limit: 4 })).toStrictEqual(newestFirst);
        expect(await allPages({ limit: 3, tokenId: 'op02' })).toStrictEqual(
          newestFirst.filter((e) => e.tokenId === 'op02'),
        );
        expect(await allPages({ limit: 5, accountId: 'acme' })).toStrictEqual(
          newestFirst.filter((e) => e.accountId === 'acme'),
        );
        expect(await allPages({ limit: 2, accountId: 'globex', tokenId: 'op01' })).toStrictEqual(
          newestFirst.filter((e) => e.accountId === 'globex' && e.tokenId === 'op01'),
        );
        expect(await allPages({ limit: 2, tokenId: 'none' })).toEqual([]);
        expect(await allPages({ limit: 2, accountId: 'acm' })).toEqual([]);
      });

      it('lists the entries answered in a time window [from, to), with the other filters and pages', async () => {
        const made: AuditEntry[] = [];
        for (let i = 0; i < 12; i++)
          made.push(await store().appendAudit(audit({ at: 1000 * i, tokenId: i % 2 === 0 ? 'op01' : 'op02' })));
        const newestFirst = [...made].reverse();
        const within = (from: number, to: number) => newestFirst.filter((e) => e.at >= from && e.at < to);
        expect(await allPages({ limit: 2, from: 3000, to: 8000 })).toStrictEqual(within(3000, 8000));
        expect(await allPages({ limit: 3, from: 9000 })).toStrictEqual(within(9000, Infinity));
        expect(await allPages({ limit: 3, to: 2000 })).toStrictEqual(within(0, 2000));
        expect(await allPages({ limit: 2, from: 2000, to: 9000, tokenId: 'op02' })).toStrictEqual(
          within(2000, 9000).filter((e) => e.tokenId === 'op02'),
        );
        expect(await allPages({ limit: 5, from: 4000, to: 4000 })).toEqual([]);
        expect(await allPages({ limit: 5, from: 4500, to: 4999 })).toEqual([]);
      });

      it('gives concurrent appends distinct ids, every one listed', async () => {
        const made = await Promise.all(Array.from({ length: 20 }, (_, i) => store().appendAudit(audit({ at: i }))));
        const ids = made.map((e) => e.id);
        expect(new Set(ids).size).toBe(20);
        expect((await store().listAudit({ limit: 1000 })).entries.map((e) => e.id)).toEqual(
          [...ids].sort((a, b) => b - a),
        );
      });

      it.each<[string, Partial<NewAuditEntry>]>([
        ['a status outside 100..599', { status: 600 }],
        ['a malformed token id', { tokenId: 'NO!' }],
        ['an empty action', { action: '' }],
        ['a resource over 255 characters', { resource: 'r'.repeat(256) }],
        ['a time that is no integer', { at: Number.NaN }],
      ])('refuses %s with VALIDATION_FAILED and appends nothing', async (_name, change) => {
        await rejectsWithCode(store().appendAudit(audit(change)), 'VALIDATION_FAILED');
        expect((await store().listAudit()).entries).toEqual([]);
      });

      it('keeps 255-character fields and any text exactly', async () => {
        const entry = await store().appendAudit(
          audit({ resource: '資'.repeat(255), action: 'x'.repeat(255), accountId: 'a'.repeat(255) }),
        );
        expect((await store().listAudit()).entries).toStrictEqual([entry]);
        expect(entry.resource).toBe('資'.repeat(255));
      });

      it('refuses a bad query with VALIDATION_FAILED', async () => {
        for (const query of [
          { limit: 0 },
          { limit: 1001 },
          { before: 0 },
          { before: 1.5 },
          { tokenId: 'NO!' },
          { from: -1 },
          { to: 1.5 },
          { from: 2000, to: 1000 },
        ]) {
          await rejectsWithCode(store().listAudit(query), 'VALIDATION_FAILED');
        }
      });
    });

    it('fails every call with STORE_CLOSED after close', async () => {
      const s = store();
      await s.close();
      await rejectsWithCode(s.createToken(operator()), 'STORE_CLOSED');
      await rejectsWithCode(s.findToken('op01'), 'STORE_CLOSED');
      await rejectsWithCode(s.listTokens(), 'STORE_CLOSED');
      await rejectsWithCode(s.revokeToken('op01', 1), 'STORE_CLOSED');
      await rejectsWithCode(s.appendAudit(audit()), 'STORE_CLOSED');
      await rejectsWithCode(s.listAudit(), 'STORE_CLOSED');
    });
  });
}
