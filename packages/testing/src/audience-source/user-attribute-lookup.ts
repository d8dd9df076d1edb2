import { MAX_USERS_PER_LOOKUP, type AttributeIndex, type UserAttributeLookup } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { useFreshStore, type StoreFactory } from '../store-factory';

/**
 * The UserAttributeLookup contract (core ports/user-attribute-lookup.ts) as
 * tests, for a store that is also the AttributeIndex the attributes are put
 * through (the targeting store: one write serves targeting and templates).
 *
 * @example
 *   userAttributeLookupConformance('LevelAttributeIndex', async () => {
 *     const dir = await makeTempDir('herald-attributes-');
 *     return { store: await LevelAttributeIndex.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function userAttributeLookupConformance(
  name: string,
  open: StoreFactory<AttributeIndex & UserAttributeLookup>,
): void {
  describe(`UserAttributeLookup conformance: ${name}`, () => {
    const store = useFreshStore(open);

    it('answers one entry per uin, in order, undefined for users it does not hold', async () => {
      await store().putUsers([
        { uin: 1, region: 'cn-gd', gender: 'f', ageBand: '18-24', activeAt: 5, tags: ['vip', 'new'] },
        { uin: 2 ** 32 - 1, region: 'cn-sh' },
      ]);
      const users = await store().getUsers(Uint32Array.of(2 ** 32 - 1, 7, 1));
      expect(users).toHaveLength(3);
      expect(users[0]).toMatchObject({ uin: 2 ** 32 - 1, region: 'cn-sh' });
      expect(users[1]).toBeUndefined();
      expect(users[2]).toMatchObject({
        uin: 1,
        region: 'cn-gd',
        gender: 'f',
        ageBand: '18-24',
        activeAt: 5,
        tags: ['new', 'vip'],
      });
    });

    it('answers a uin twice when asked twice, and undefined for values that are no uin', async () => {
      await store().putUsers([{ uin: 3, region: 'x' }]);
      const users = await store().getUsers([3, -1, 3, 2 ** 32, 1.5]);
      expect(users.map((u) => u?.region)).toEqual(['x', undefined, 'x', undefined, undefined]);
    });

    it('follows puts and removes', async () => {
      await store().putUsers([{ uin: 4, region: 'a' }]);
      await store().putUsers([{ uin: 4, region: 'b' }]);
      expect((await store().getUsers([4]))[0]?.region).toBe('b');
      await store().removeUsers([4]);
      expect(await store().getUsers([4])).toEqual([undefined]);
    });

    it('answers a whole executor batch in one call', async () => {
      const uins = Array.from({ length: 4096 }, (_, i) => i * 3);
      await store().putUsers(uins.filter((_, i) => i % 2 === 0).map((uin) => ({ uin, region: `r${uin % 7}` })));
      const users = await store().getUsers(Uint32Array.from(uins));
      expect(users.filter((u) => u !== undefined)).toHaveLength(2048);
      users.forEach((u, i) =>
        expect(u === undefined ? undefined : u.region).toBe(i % 2 === 0 ? `r${uins[i]! % 7}` : undefined),
      );
    });

    it('answers an empty list with an empty list, and refuses more than MAX_USERS_PER_LOOKUP uins', async () => {
      expect(await store().getUsers([])).toEqual([]);
      await rejectsWithCode(store().getUsers(new Uint32Array(MAX_USERS_PER_LOOKUP + 1)), 'VALIDATION_FAILED');
    });

    it('rejects with a HeraldError once closed', async () => {
      await store().close();
      await expect(store().getUsers([1])).rejects.toHaveProperty('code');
    });
  });
}
