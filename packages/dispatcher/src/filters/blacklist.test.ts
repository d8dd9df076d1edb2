import { blacklistFilter, type BlacklistSource } from './blacklist';

const context = { taskId: 1, accountId: 'acme', contentCrc: 0 };
const audience = () => Uint32Array.of(1, 2, 3, 4, 5, 6);

/** A fake source; records which accounts were asked for. */
function source(
  global: number[] | undefined,
  byAccount: Record<string, number[]>,
): BlacklistSource & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    global: async () => (global === undefined ? undefined : Uint32Array.from(global)),
    forAccount: async (accountId) => {
      asked.push(accountId);
      const own = byAccount[accountId];
      return own === undefined ? undefined : Uint32Array.from(own);
    },
  };
}

describe('blacklistFilter', () => {
  it('is the blacklisted link', () => {
    const filter = blacklistFilter(source(undefined, {}));
    expect(filter.name).toBe('blacklist');
    expect(filter.reason).toBe('blacklisted');
  });

  it('removes the global blacklist only, when the account has none', async () => {
    const fake = source([2, 5, 100], {});
    expect([...(await blacklistFilter(fake).apply(audience(), context))]).toEqual([1, 3, 4, 6]);
    expect(fake.asked).toEqual(['acme']);
  });

  it("removes the account's own blacklist only, when there is no global one", async () => {
    const fake = source(undefined, { acme: [1, 6], other: [3] });
    expect([...(await blacklistFilter(fake).apply(audience(), context))]).toEqual([2, 3, 4, 5]);
  });

  it('removes both lists, overlapping or not', async () => {
    const fake = source([2, 4], { acme: [4, 5], other: [1] });
    expect([...(await blacklistFilter(fake).apply(audience(), context))]).toEqual([1, 3, 6]);
  });

  it('keeps everyone when neither list exists', async () => {
    expect([...(await blacklistFilter(source(undefined, { other: [1] })).apply(audience(), context))]).toEqual([
      1, 2, 3, 4, 5, 6,
    ]);
  });

  it('can remove everyone', async () => {
    expect((await blacklistFilter(source([1, 2, 3], { acme: [4, 5, 6] })).apply(audience(), context)).length).toBe(0);
  });
});
