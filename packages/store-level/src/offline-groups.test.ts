import { makeTempDir, type TempDir } from '@herald/testing';
import { ClassicLevel } from 'classic-level';
import { EMPTY, encodeF64 } from './keys';
import { LevelOfflineStore } from './level-offline-store';
import {
  encodeCount,
  encodeExpiry,
  EXPIRY_INDEX_KEY,
  expiryKey,
  GROUP_RECORDS,
  indexKey,
  RANGE_BITS_KEY,
  recordKey,
  RECORDS,
  taskRangeKey,
} from './offline-keys';
import { encodeUins } from './uin-records';

const u32 = (...uins: number[]): Uint32Array => Uint32Array.from(uins);
const raw = (path: string) =>
  new ClassicLevel<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });

async function scan(store: LevelOfflineStore, taskId: number): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of store.scanTask(taskId)) out.push(...chunk);
  return out;
}

describe('LevelOfflineStore groups', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-offline-groups-');
  });
  afterEach(() => dir.remove());

  it("keeps each group's batches as they were written: a later group's append rewrites no earlier record", async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 16 });
    // Two groups interleaving in uin order, as a local-time task's do.
    await store.append(1, 99, u32(10, 30, 50), { group: 0 });
    await store.append(1, 99, u32(70, 90), { group: 0 });
    await store.append(1, 99, u32(20, 40, 60), { group: 1 });
    await store.append(1, 99, u32(80), { group: 1 });
    expect(await scan(store, 1)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90]);
    expect(await store.pending(40)).toEqual([{ taskId: 1, expiresAt: 99 }]);
    await store.close();
    const db = raw(dir.path);
    try {
      expect(await db.keys(RECORDS).all()).toEqual([]);
      const records = (await db.values(GROUP_RECORDS).all()).map((v) => [...new Uint32Array(new Uint8Array(v).buffer)]);
      expect(records).toEqual([[10, 30, 50], [70, 90], [20, 40, 60], [80]]);
    } finally {
      await db.close();
    }
  });

  it('reads, acknowledges, extends and purges a store written in the layout before groups', async () => {
    // What a store of the previous release holds for task 3 (rangeBits 12): one 'r' record per range,
    // its 'k' count and 8-byte 'i' entry, the 'e' entry and the two 'm' markers.
    const before = raw(dir.path);
    await before.open();
    const ops = [
      { key: RANGE_BITS_KEY, value: Buffer.of(12) },
      { key: EXPIRY_INDEX_KEY, value: EMPTY },
      { key: expiryKey(99, 3), value: encodeExpiry(99, undefined) },
    ];
    for (const [range, uins] of [
      [0, u32(1)],
      [1, u32(5000, 6000)],
      [2, u32(9000)],
    ] as const)
      ops.push(
        { key: recordKey(range, 3, uins[0]!), value: encodeUins(uins) },
        { key: indexKey(range, 3), value: encodeF64(99) },
        { key: taskRangeKey(3, range), value: encodeCount(1) },
      );
    await before.batch(ops.map((op) => ({ type: 'put' as const, ...op })));
    await before.close();

    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 12 });
    expect(await store.pending(6000)).toEqual([{ taskId: 3, expiresAt: 99 }]);
    expect(await scan(store, 3)).toEqual([1, 5000, 6000, 9000]);
    // The same task gets grouped records beside the old ones, in the same ranges.
    await store.append(3, 99, u32(5001, 5999, 9001), { group: 2 });
    await store.append(3, 99, u32(5000), { group: 1 });
    await store.acknowledge(6000, [3]);
    expect(await store.pending(6000)).toEqual([]);
    expect(await store.pending(5000)).toEqual([{ taskId: 3, expiresAt: 99 }]);
    expect(await store.pending(5999)).toEqual([{ taskId: 3, expiresAt: 99 }]);
    expect(await scan(store, 3)).toEqual([1, 5000, 5001, 5999, 9000, 9001]);
    await store.close();

    const reopened = await LevelOfflineStore.open(dir.path, { rangeBits: 12 });
    expect(await scan(reopened, 3)).toEqual([1, 5000, 5001, 5999, 9000, 9001]);
    expect(await reopened.purgeExpired(100, 1000)).toMatchObject({ entries: 8, done: true });
    expect(await reopened.pending(5001)).toEqual([]);
    expect(await scan(reopened, 3)).toEqual([]);
    await reopened.close();
    const db = raw(dir.path);
    try {
      // Only the two 'm' markers are left.
      expect((await db.keys().all()).length).toBe(2);
    } finally {
      await db.close();
    }
  });
});
