import { decodeChunk, chunkHas, userBitsetKeys, type UserAttributes } from '@herald/core/targeting';
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

/** Each row as [chunk, key, its members], in the order read. */
function rowsRead(rows: readonly StoredChunk[]): [number, string, number[]][] {
  return rows.map((row) => [row.chunk, row.key, membersOf([row], row.key)]);
}

/**
 * The rows readChunks(keys, from, to) should answer for these users, from
 * their attributes alone: by chunk, then key, a (key, chunk) holding nobody
 * left out.
 */
function rowsExpected(users: Iterable<UserAttributes>, keys: readonly string[], from: number, to: number) {
  const members = new Map<string, number[]>();
  for (const user of users) {
    const chunk = Math.floor(user.uin / 65_536);
    if (chunk < from || chunk >= to) continue;
    for (const key of userBitsetKeys(user)) {
      if (!keys.includes(key)) continue;
      const id = `${String(chunk).padStart(5, '0')} ${key}`;
      members.set(id, [...(members.get(id) ?? []), user.uin]);
    }
  }
  const ids = [...members.keys()].sort((a, b) => {
    const [chunkA, keyA] = [a.slice(0, 5), a.slice(6)];
    const [chunkB, keyB] = [b.slice(0, 5), b.slice(6)];
    return chunkA !== chunkB ? (chunkA < chunkB ? -1 : 1) : keyA < keyB ? -1 : keyA > keyB ? 1 : 0;
  });
  return ids.map((id) => [Number(id.slice(0, 5)), id.slice(6), members.get(id)!.sort((a, b) => a - b)]);
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

    describe('time-zone bitsets read by chunk (a local-time walk reads every zone of each chunk)', () => {
      const C = 65_536;
      const zones = ['tz=+05:30', 'tz=America/New_York', 'tz=Asia/Tokyo', 'tz=Europe/Berlin'];
      const users = new Map<number, UserAttributes>();
      const put = async (list: UserAttributes[]) => {
        await index().putUsers(list);
        for (const user of list) users.set(user.uin, user);
      };
      const remove = async (uins: number[]) => {
        await index().removeUsers(uins);
        for (const uin of uins) users.delete(uin);
      };
      /** Every read a wrong grouping could spoil: all zones, some, zones among other keys, windows cutting chunks. */
      const expectReadsAsPut = async () => {
        const reads: [string[], number, number][] = [
          [zones, 0, C],
          [['tz=Europe/Berlin', 'tz=+05:30'], 0, C],
          [['tz=Asia/Tokyo'], 0, C],
          [['*', 'region=x', 'tz=Europe/Berlin', 'tz=Asia/Tokyo', 'tag=none'], 0, C],
          [['region=y', ...zones, 'region=x'], 1, 3],
          [[...zones, 'tz=Antarctica/Troll', '*'], 2, 5],
          [zones, 3, 4],
        ];
        for (const [keys, from, to] of reads)
          expect({ keys, from, to, rows: rowsRead(await index().readChunks(keys, from, to)) }).toEqual({
            keys,
            from,
            to,
            rows: rowsExpected(users.values(), keys, from, to),
          });
      };

      beforeEach(() => users.clear());

      it('answers every zone key of each chunk, alone, in part and among other keys, as the users were put', async () => {
        await put([
          { uin: 5, tz: 'Europe/Berlin', region: 'x' },
          { uin: 6, tz: '+05:30' },
          { uin: 7, region: 'y' },
          { uin: C + 1, tz: 'Asia/Tokyo', region: 'x' },
          { uin: C + 2, tz: 'Europe/Berlin', region: 'y' },
          { uin: C + 3, tz: 'America/New_York' },
          { uin: 2 * C + 9, tz: 'Europe/Berlin' },
          { uin: 2 * C + 10, tz: 'Asia/Tokyo', region: 'x' },
          { uin: 4 * C, tz: '+05:30', region: 'x' },
          { uin: 4 * C + 1, tz: 'Europe/Berlin' },
        ]);
        await expectReadsAsPut();
        expect(rowsRead(await index().readChunks(zones, 1, 2))).toEqual([
          [1, 'tz=America/New_York', [C + 3]],
          [1, 'tz=Asia/Tokyo', [C + 1]],
          [1, 'tz=Europe/Berlin', [C + 2]],
        ]);
      });

      it('follows users moving zone, losing it, and leaving (a zone losing its last member of a chunk)', async () => {
        await put([
          { uin: 5, tz: 'Europe/Berlin' },
          { uin: 6, tz: 'Europe/Berlin', region: 'x' },
          { uin: C + 1, tz: 'Asia/Tokyo' },
          { uin: C + 2, tz: '+05:30', region: 'y' },
          { uin: 3 * C, tz: 'America/New_York' },
          { uin: 4 * C + 1, tz: 'Europe/Berlin' },
        ]);
        await put([
          { uin: 5, tz: 'Asia/Tokyo' },
          { uin: C + 1, tz: 'Europe/Berlin' },
          { uin: C + 2, region: 'y' },
        ]);
        await expectReadsAsPut();
        await remove([6, 3 * C, 4 * C + 1]);
        await expectReadsAsPut();
        expect(await index().readChunks(zones, 3, C)).toEqual([]);
        await remove([5, C + 1]);
        expect(await index().readChunks(zones, 0, C)).toEqual([]);
        expect(await index().keysWithPrefix('tz=')).toEqual([]);
        await put([{ uin: 3 * C + 7, tz: 'Asia/Tokyo' }]);
        await expectReadsAsPut();
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
