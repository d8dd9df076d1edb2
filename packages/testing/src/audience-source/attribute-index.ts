import { decodeChunk, chunkHas } from '@herald/core/targeting';
import type { AttributeIndex, StoredChunk } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { useFreshStore, type StoreFactory } from '../store-factory';

const DAY = 86_400_000;

/** The uins of the stored chunks of `key`, ascending. */
function membersOf(rows: readonly StoredChunk[], key: string): number[] {
  const uins: number[] = [];
  for (const row of rows.filter((r) => r.key === key)) {
    const words = decodeChunk(row.bytes);
    for (let low = 0; low < 65_536; low++)
      if (chunkHas(words, row.chunk * 65_536 + low)) uins.push(row.chunk * 65_536 + low);
  }
  return uins.sort((a, b) => a - b);
}

/**
 * The AttributeIndex contract (core ports/attribute-index.ts) as tests: the
 * bitsets follow every put and remove. The targeting source over an index is
 * tested by the AudienceSource suite in each adapter's test file.
 *
 * @example
 *   attributeIndexConformance('LevelAttributeIndex', async () => {
 *     const dir = await makeTempDir('herald-attributes-');
 *     return { store: await LevelAttributeIndex.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function attributeIndexConformance(name: string, open: StoreFactory<AttributeIndex>): void {
  describe(`AttributeIndex conformance: ${name}`, () => {
    const index = useFreshStore(open);
    const all = (keys: string[]) => index().readChunks(keys, 0, 65_536);

    it('puts users into the universe and the bitset of each of their values', async () => {
      await index().putUsers([
        { uin: 1, region: 'cn-gd', gender: 'f', ageBand: '18-24', activeAt: 3 * DAY + 5, tags: ['vip', 'new'] },
        { uin: 70_000, region: 'cn-gd' },
        { uin: 2 ** 32 - 1, gender: 'f' },
      ]);
      const rows = await all([
        '*',
        'region=cn-gd',
        'gender=f',
        'age=18-24',
        'active=3',
        'tag=vip',
        'tag=new',
        'tag=none',
      ]);
      expect(membersOf(rows, '*')).toEqual([1, 70_000, 2 ** 32 - 1]);
      expect(membersOf(rows, 'region=cn-gd')).toEqual([1, 70_000]);
      expect(membersOf(rows, 'gender=f')).toEqual([1, 2 ** 32 - 1]);
      expect(membersOf(rows, 'age=18-24')).toEqual([1]);
      expect(membersOf(rows, 'active=3')).toEqual([1]);
      expect(membersOf(rows, 'tag=vip')).toEqual([1]);
      expect(membersOf(rows, 'tag=none')).toEqual([]);
      expect(await index().getUser(1)).toEqual({
        uin: 1,
        region: 'cn-gd',
        gender: 'f',
        ageBand: '18-24',
        activeAt: 3 * DAY + 5,
        tags: ['new', 'vip'],
      });
      expect(await index().getUser(2)).toBeUndefined();
    });

    it('moves a user whose attributes change out of the old bitsets, deleting a chunk that empties', async () => {
      await index().putUsers([{ uin: 5, region: 'a', tags: ['x'] }]);
      await index().putUsers([{ uin: 5, region: 'b' }]);
      const rows = await all(['*', 'region=a', 'region=b', 'tag=x']);
      expect(membersOf(rows, 'region=b')).toEqual([5]);
      expect(rows.filter((r) => r.key === 'region=a' || r.key === 'tag=x')).toEqual([]);
      expect(await index().getUser(5)).toEqual({ uin: 5, region: 'b' });
      expect(await index().keysWithPrefix('region=')).toEqual(['region=b']);
    });

    it('keeps the last of a uin given twice in one call', async () => {
      await index().putUsers([
        { uin: 9, gender: 'm' },
        { uin: 9, gender: 'f' },
      ]);
      const rows = await all(['gender=m', 'gender=f']);
      expect(membersOf(rows, 'gender=f')).toEqual([9]);
      expect(membersOf(rows, 'gender=m')).toEqual([]);
    });

    it('removes users from every bitset and the universe; unknown uins are ignored', async () => {
      await index().putUsers([
        { uin: 1, tags: ['t'] },
        { uin: 2, tags: ['t'] },
      ]);
      await index().removeUsers([1, 12_345]);
      const rows = await all(['*', 'tag=t']);
      expect(membersOf(rows, '*')).toEqual([2]);
      expect(membersOf(rows, 'tag=t')).toEqual([2]);
      expect(await index().getUser(1)).toBeUndefined();
    });

    it('lists keys by prefix, ascending, only of bitsets holding anyone', async () => {
      await index().putUsers([
        { uin: 1, activeAt: 10 * DAY },
        { uin: 2, activeAt: 9 * DAY },
        { uin: 3, tags: ['active'] },
      ]);
      expect(await index().keysWithPrefix('active=')).toEqual(['active=10', 'active=9']);
      await index().removeUsers([2]);
      expect(await index().keysWithPrefix('active=')).toEqual(['active=10']);
      expect(await index().keysWithPrefix('tag=')).toEqual(['tag=active']);
      expect(await index().keysWithPrefix('%')).toEqual([]);
      expect(await index().keysWithPrefix('')).toEqual(['*', 'active=10', 'tag=active']);
    });

    it("keeps a user's time zone as its canonical name and as a tz= bitset, moving it when it changes", async () => {
      await index().putUsers([
        { uin: 1, tz: 'europe/berlin' },
        { uin: 2, tz: '+05:30' },
        { uin: 3, region: 'x' },
      ]);
      expect(await index().getUser(1)).toEqual({ uin: 1, tz: 'Europe/Berlin' });
      expect(await index().getUser(2)).toEqual({ uin: 2, tz: '+05:30' });
      expect(await index().keysWithPrefix('tz=')).toEqual(['tz=+05:30', 'tz=Europe/Berlin']);
      await index().putUsers([{ uin: 1, tz: 'Asia/Tokyo' }]);
      expect(await index().keysWithPrefix('tz=')).toEqual(['tz=+05:30', 'tz=Asia/Tokyo']);
      await expect(index().putUsers([{ uin: 4, tz: 'Mars/Base' }])).rejects.toMatchObject({
        details: { field: 'tz' },
      });
    });

    it('finds the next chunk holding anyone, and reads chunks of a window in chunk order', async () => {
      await index().putUsers([
        { uin: 3 * 65_536 + 1, tags: ['a'] },
        { uin: 10 * 65_536, tags: ['a'] },
        { uin: 10 * 65_536 + 5 },
      ]);
      expect(await index().nextChunk(0)).toBe(3);
      expect(await index().nextChunk(3)).toBe(3);
      expect(await index().nextChunk(4)).toBe(10);
      expect(await index().nextChunk(11)).toBeUndefined();
      const window = await index().readChunks(['tag=a', '*'], 3, 11);
      expect(window.map((r) => [r.chunk, r.key])).toEqual([
        [3, '*'],
        [3, 'tag=a'],
        [10, '*'],
        [10, 'tag=a'],
      ]);
      expect(await index().readChunks(['tag=a'], 4, 10)).toEqual([]);
      expect(await index().readChunks([], 0, 100)).toEqual([]);
    });

    it('stores a crowded chunk dense and reads it back', async () => {
      const users = Array.from({ length: 5000 }, (_, i) => ({ uin: 65_536 + i * 13, tags: ['crowd'] }));
      await index().putUsers(users);
      const rows = await all(['tag=crowd']);
      expect(rows.map((r) => r.bytes.byteLength)).toEqual([8192]);
      expect(membersOf(rows, 'tag=crowd')).toEqual(users.map((u) => u.uin));
    });

    it('refuses a call with a bad user before writing any of it', async () => {
      await rejectsWithCode(
        index().putUsers([
          { uin: 1, tags: ['ok'] },
          { uin: 2, gender: 'female' as never },
        ]),
        'VALIDATION_FAILED',
      );
      expect(await index().getUser(1)).toBeUndefined();
      expect(await all(['*'])).toEqual([]);
      await rejectsWithCode(index().removeUsers([-1]), 'VALIDATION_FAILED');
    });
  });
}
