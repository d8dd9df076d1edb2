import { ErrorCodes } from '@herald/core';
import {
  makeTempDir,
  offlineRestartConformance,
  offlineStoreConformance,
  rejectsWithCode,
  type TempDir,
} from '@herald/testing';
import { ClassicLevel } from 'classic-level';
import { LevelOfflineStore } from './level-offline-store';
import { EXPIRY_INDEX_KEY } from './offline-keys';

for (const rangeBits of [8, 16, 32]) {
  offlineStoreConformance(`LevelOfflineStore (rangeBits ${rangeBits})`, async () => {
    const dir = await makeTempDir('herald-level-offline-');
    return { store: await LevelOfflineStore.open(dir.path, { rangeBits }), cleanup: dir.remove };
  });
}

// maxCachedSpans 4: the store forgets a task's spans between appends, as after a restart, all the time.
for (const options of [{ rangeBits: 8 }, { rangeBits: 16 }, { rangeBits: 12, maxCachedSpans: 4 }]) {
  offlineRestartConformance(`LevelOfflineStore ${JSON.stringify(options)}`, async () => {
    const dir = await makeTempDir('herald-level-offline-restart-');
    return {
      store: await LevelOfflineStore.open(dir.path, options),
      reopen: () => LevelOfflineStore.open(dir.path, options),
      cleanup: dir.remove,
    };
  });
}

describe('LevelOfflineStore', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-offline-');
  });
  afterEach(() => dir.remove());

  async function scan(store: LevelOfflineStore, taskId: number): Promise<Uint32Array[]> {
    const chunks: Uint32Array[] = [];
    for await (const chunk of store.scanTask(taskId)) chunks.push(chunk);
    return chunks;
  }

  it('estimates its size on disk: grown once appends reach a table file (here by reopening)', async () => {
    const first = await LevelOfflineStore.open(dir.path);
    expect(await first.approximateBytes()).toBe(0);
    for (let taskId = 1; taskId <= 20; taskId++)
      await first.append(
        taskId,
        99,
        Uint32Array.from({ length: 5000 }, (_, i) => i * 7 + taskId),
      );
    await first.close();
    const second = await LevelOfflineStore.open(dir.path);
    expect(await second.approximateBytes()).toBeGreaterThan(20 * 5000); // 4 bytes an entry, before compression
    await second.close();
  });

  it('keeps entries and acknowledgements across close and reopen', async () => {
    const first = await LevelOfflineStore.open(dir.path, { rangeBits: 12 });
    await first.append(3, 99, Uint32Array.of(1, 5000, 9000));
    await first.acknowledge(5000, [3]);
    await first.close();
    const second = await LevelOfflineStore.open(dir.path, { rangeBits: 12 });
    expect(await second.pending(1)).toEqual([{ taskId: 3, expiresAt: 99 }]);
    expect(await second.pending(5000)).toEqual([]);
    expect((await scan(second, 3)).flatMap((c) => [...c])).toEqual([1, 9000]);
    await second.close();
  });

  it('indexes by expiry, at its first open, a store written before the expiry index, so old tasks are purged too', async () => {
    const first = await LevelOfflineStore.open(dir.path, { rangeBits: 12 });
    await first.append(3, 99, Uint32Array.of(1, 5000, 9000));
    await first.append(4, 500, Uint32Array.of(2));
    await first.close();
    // What an earlier release left: no 'e' keys and no marker saying they cover every task.
    const raw = new ClassicLevel<Buffer, Buffer>(dir.path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
    const gone = await raw.keys({ gte: Buffer.from('e'), lt: Buffer.from('f') }).all();
    expect(gone.length).toBe(2);
    await raw.batch([...gone, EXPIRY_INDEX_KEY].map((key) => ({ type: 'del' as const, key })));
    await raw.close();
    const second = await LevelOfflineStore.open(dir.path, { rangeBits: 12 });
    expect(await second.purgeExpired(100, 1000)).toMatchObject({ entries: 3, done: true });
    expect(await second.pending(1)).toEqual([]);
    expect(await second.pending(2)).toEqual([{ taskId: 4, expiresAt: 500 }]);
    await second.close();
  });

  it('splits a batch into one record per range and yields them range by range', async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 8 });
    await store.append(1, 0, Uint32Array.of(1, 2, 255, 256, 300, 70_000));
    expect((await scan(store, 1)).map((c) => [...c])).toEqual([[1, 2, 255], [256, 300], [70_000]]);
    await store.close();
  });

  it('with rangeBits 32 keeps a whole batch in one record (range 0)', async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 32 });
    await store.append(1, 0, Uint32Array.of(0, 1, 2 ** 31, 0xffffffff));
    expect((await scan(store, 1)).map((c) => [...c])).toEqual([[0, 1, 2 ** 31, 0xffffffff]]);
    await store.close();
  });

  it('merges overlapping records of a range into one', async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 16 });
    await store.append(1, 0, Uint32Array.of(10, 20, 30));
    await store.append(1, 0, Uint32Array.of(40, 50));
    await store.append(1, 0, Uint32Array.of(25, 45));
    expect((await scan(store, 1)).map((c) => [...c])).toEqual([[10, 20, 25, 30, 40, 45, 50]]);
    await store.append(1, 0, Uint32Array.of(60));
    expect((await scan(store, 1)).map((c) => [...c])).toEqual([[10, 20, 25, 30, 40, 45, 50], [60]]);
    await store.close();
  });

  it('rejects a rangeBits outside 8..32, or one that differs from the stored layout, with CONFIG_INVALID', async () => {
    for (const rangeBits of [7, 33, 12.5])
      await rejectsWithCode(LevelOfflineStore.open(dir.path, { rangeBits }), ErrorCodes.CONFIG_INVALID);
    const store = await LevelOfflineStore.open(dir.path);
    expect(store.rangeBits).toBe(16);
    await store.close();
    await rejectsWithCode(LevelOfflineStore.open(dir.path, { rangeBits: 20 }), ErrorCodes.CONFIG_INVALID);
    const again = await LevelOfflineStore.open(dir.path, { rangeBits: 16 });
    await again.close();
  });

  it("answers the expiry of the task's latest append in the ranges it touched, the index being written only when it changes", async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 12 });
    await store.append(1, 99, Uint32Array.of(10, 5000), { group: 0 });
    await store.append(1, 99, Uint32Array.of(20, 5010), { group: 0 });
    await store.append(1, 200, Uint32Array.of(30), { group: 0 });
    expect(await store.pending(10)).toEqual([{ taskId: 1, expiresAt: 200 }]);
    expect(await store.pending(5000)).toEqual([{ taskId: 1, expiresAt: 99 }]);
    await store.append(1, 200, Uint32Array.of(5020), { group: 1 });
    expect(await store.pending(5010)).toEqual([{ taskId: 1, expiresAt: 200 }]);
    // Ungrouped, expiring back at 99: the index lists both kinds again.
    await store.append(1, 99, Uint32Array.of(5030));
    for (const uin of [5000, 5020, 5030]) expect(await store.pending(uin)).toEqual([{ taskId: 1, expiresAt: 99 }]);
    await store.close();
  });

  it('writes no acknowledgement for an entry pending found but a purge removed since: a later append of the task shows', async () => {
    const store = await LevelOfflineStore.open(dir.path);
    await store.append(1, 100, Uint32Array.of(5));
    expect(await store.pending(5)).toEqual([{ taskId: 1, expiresAt: 100 }]);
    expect((await store.purgeExpired(100, 1000)).done).toBe(true);
    await store.acknowledge(5, [1]);
    await store.append(1, 300, Uint32Array.of(5));
    expect(await store.pending(5)).toEqual([{ taskId: 1, expiresAt: 300 }]);
    await store.close();
  });

  it('acknowledges what pending found, and any other entry the user has, but none the user lacks', async () => {
    const store = await LevelOfflineStore.open(dir.path);
    await store.append(1, 100, Uint32Array.of(5, 6));
    await store.append(2, 100, Uint32Array.of(5));
    expect(await store.pending(6)).toEqual([{ taskId: 1, expiresAt: 100 }]);
    await store.append(3, 100, Uint32Array.of(6));
    await store.acknowledge(6, [1, 2, 3]);
    await store.append(2, 100, Uint32Array.of(6));
    expect(await store.pending(6)).toEqual([{ taskId: 2, expiresAt: 100 }]);
    expect(await store.pending(5)).toHaveLength(2);
    await store.close();
  });

  it('fails every call after close with STORE_CLOSED', async () => {
    const store = await LevelOfflineStore.open(dir.path);
    await store.append(1, 0, Uint32Array.of(1));
    await store.close();
    await store.close();
    await rejectsWithCode(store.append(1, 0, Uint32Array.of(2)), ErrorCodes.STORE_CLOSED);
    await rejectsWithCode(store.pending(1), ErrorCodes.STORE_CLOSED);
    await rejectsWithCode(store.acknowledge(1, [1]), ErrorCodes.STORE_CLOSED);
    await rejectsWithCode(scan(store, 1), ErrorCodes.STORE_CLOSED);
  });
});
