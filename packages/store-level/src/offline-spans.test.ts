import { makeTempDir, offlineStoreConformance, type TempDir } from '@herald/testing';
import { ClassicLevel } from 'classic-level';
import { readU64BE } from './keys';
import { LevelOfflineStore } from './level-offline-store';
import { GROUP_RECORDS, RECORDS, UNGROUPED } from './offline-keys';
import { RangeSpans, RecordSpans } from './offline-spans';
import { RecordCursor } from './offline-cursors';

// Every append reading its task's records from disk: the path after a restart or an eviction.
offlineStoreConformance('LevelOfflineStore (rangeBits 16, no spans kept in memory)', async () => {
  const dir = await makeTempDir('herald-level-offline-');
  return { store: await LevelOfflineStore.open(dir.path, { rangeBits: 16, maxCachedSpans: 0 }), cleanup: dir.remove };
});

const u32 = (...uins: number[]): Uint32Array => Uint32Array.from(uins);

async function scan(store: LevelOfflineStore, taskId: number): Promise<number[]> {
  const out: number[] = [];
  for await (const chunk of store.scanTask(taskId)) out.push(...chunk);
  return out;
}

/**
 * Reads a closed store's raw keys: for each (task, range, group), its 'k'
 * count and how many 'r' (ungrouped) or 'q' records it really has there. They must agree: scanTask and
 * the merges trust the count.
 */
async function countsOnDisk(path: string): Promise<{ counted: Map<string, number>; records: Map<string, number> }> {
  const db = new ClassicLevel<Buffer, Buffer>(path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  try {
    const counted = new Map<string, number>();
    for (const [k, v] of await db.iterator({ gte: Buffer.from('k'), lt: Buffer.from('l') }).all())
      counted.set(
        `${readU64BE(k, 1)}/${k.readUInt32BE(9)}/${k.length > 13 ? k.readUInt32BE(13) : '-'}`,
        v.readUInt32BE(0),
      );
    const records = new Map<string, number>();
    for (const k of await db.keys(RECORDS).all()) {
      const at = `${readU64BE(k, 5)}/${k.readUInt32BE(1)}/-`;
      records.set(at, (records.get(at) ?? 0) + 1);
    }
    for (const k of await db.keys(GROUP_RECORDS).all()) {
      const at = `${readU64BE(k, 5)}/${k.readUInt32BE(1)}/${k.readUInt32BE(13)}`;
      records.set(at, (records.get(at) ?? 0) + 1);
    }
    return { counted, records };
  } finally {
    await db.close();
  }
}

describe('RangeSpans', () => {
  function spansOf(...spans: [number, number][]): RangeSpans {
    const out = new RangeSpans();
    for (const [first, last] of spans) out.replace(out.count, out.count, first, last);
    return out;
  }

  it('finds the spans a batch meets, as an index range', () => {
    const spans = spansOf([10, 20], [30, 40], [50, 60]);
    expect(spans.overlapping(0, 5)).toEqual({ from: 0, to: 0 });
    expect(spans.overlapping(21, 29)).toEqual({ from: 1, to: 1 });
    expect(spans.overlapping(61, 99)).toEqual({ from: 3, to: 3 });
    expect(spans.overlapping(20, 30)).toEqual({ from: 0, to: 2 });
    expect(spans.overlapping(35, 35)).toEqual({ from: 1, to: 2 });
    expect(spans.overlapping(0, 100)).toEqual({ from: 0, to: 3 });
    expect(spans.overlapping(60, 60)).toEqual({ from: 2, to: 3 });
  });

  it('names the record whose span holds a uin, and none between spans', () => {
    const spans = spansOf([10, 20], [30, 40]);
    expect([9, 10, 15, 20, 25, 30, 40, 41].map((uin) => spans.firstHolding(uin))).toEqual([
      undefined,
      10,
      10,
      10,
      undefined,
      30,
      30,
      undefined,
    ]);
  });

  it('replaces the spans a merged record absorbs by its span', () => {
    const spans = spansOf([10, 20], [30, 40], [50, 60]);
    spans.replace(0, 2, 5, 45);
    expect([spans.firsts, spans.lasts]).toEqual([
      [5, 50],
      [45, 60],
    ]);
    spans.replace(1, 1, 47, 48);
    expect([spans.firsts, spans.lasts]).toEqual([
      [5, 47, 50],
      [45, 48, 60],
    ]);
  });
});

describe('RecordSpans', () => {
  let dir: TempDir;
  let db: ClassicLevel<Buffer, Buffer>;
  beforeEach(async () => {
    dir = await makeTempDir('herald-offline-spans-');
    db = new ClassicLevel<Buffer, Buffer>(dir.path, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  });
  afterEach(async () => {
    await db.close();
    await dir.remove();
  });

  it('keeps at most its bound of spans, evicting the least recently appended tasks first', async () => {
    const cache = new RecordSpans(db, 5);
    const records = new RecordCursor(db);
    for (const taskId of [1, 2, 3]) {
      const task = await cache.task(taskId);
      const spans = await task.shelf(0, UNGROUPED, records);
      task.replace(spans, { from: 0, to: 0 }, 10, 20);
      task.replace(spans, { from: 1, to: 1 }, 30, 40);
      cache.settle(taskId);
    }
    // 3 tasks x 2 spans > 5: task 1, the least recently settled, went.
    expect(cache.size).toEqual({ tasks: 2, spans: 4 });
    const first = await cache.task(2);
    cache.settle(2);
    const fourth = await cache.task(4);
    const spans = await fourth.shelf(0, UNGROUPED, records);
    fourth.replace(spans, { from: 0, to: 0 }, 1, 2);
    fourth.replace(spans, { from: 1, to: 1 }, 5, 6);
    cache.settle(4);
    // 6 > 5 again: task 3 went, the least recently used once task 2 was settled again.
    expect(cache.size).toEqual({ tasks: 2, spans: 4 });
    expect(await cache.task(2)).toBe(first);
    await records.close();
  });

  it('with a bound of 0 keeps nothing', async () => {
    const cache = new RecordSpans(db, 0);
    const task = await cache.task(1);
    task.replace(await task.shelf(0, UNGROUPED, new RecordCursor(db)), { from: 0, to: 0 }, 10, 20);
    cache.settle(1);
    expect(cache.size).toEqual({ tasks: 0, spans: 0 });
    expect(await cache.task(1)).not.toBe(task);
  });
});

describe('LevelOfflineStore record spans', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-level-offline-');
  });
  afterEach(() => dir.remove());

  it('merges a replay after a reopen with the records written before it (spans read again from disk)', async () => {
    const batches = [u32(1, 5, 300, 600), u32(700, 900, 70_000), u32(2, 6, 299, 301)];
    const first = await LevelOfflineStore.open(dir.path, { rangeBits: 8 });
    await first.append(1, 99, batches[0]!);
    await first.append(1, 99, batches[1]!);
    await first.close();
    const second = await LevelOfflineStore.open(dir.path, { rangeBits: 8 });
    await second.append(1, 99, batches[0]!);
    await second.append(1, 99, batches[2]!);
    await second.append(1, 99, u32(900, 70_000, 70_001));
    expect(await scan(second, 1)).toEqual([1, 2, 5, 6, 299, 300, 301, 600, 700, 900, 70_000, 70_001]);
    expect(await second.pending(301)).toEqual([{ taskId: 1, expiresAt: 99 }]);
    await second.close();
    const { counted, records } = await countsOnDisk(dir.path);
    expect(counted).toEqual(records);
  });

  it("keeps every range's count equal to its records through appends, overlaps, collapses and purges", async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 8, maxCachedSpans: 50 });
    const scope = { collapseScope: 'acme\u0000news' };
    for (let taskId = 1; taskId <= 6; taskId++) {
      for (let b = 0; b < 12; b++) {
        const uins = Uint32Array.from({ length: 40 }, (_, i) => (b * 40 + i) * 13 + taskId);
        await store.append(taskId, taskId === 3 ? 50 : 99, uins, taskId % 2 === 0 ? scope : {});
      }
      // A replay of the task's third batch, cut differently: merges with two records.
      const replay = Uint32Array.from({ length: 60 }, (_, i) => (2 * 40 + i) * 13 + taskId);
      await store.append(taskId, taskId === 3 ? 50 : 99, replay, taskId % 2 === 0 ? scope : {});
    }
    await store.purgeExpired(60, 1000);
    await store.append(3, 50, u32(5, 6));
    expect(await scan(store, 3)).toEqual([5, 6]);
    expect((await scan(store, 5)).length).toBe(12 * 40);
    await store.close();
    const { counted, records } = await countsOnDisk(dir.path);
    expect(counted).toEqual(records);
  });

  it("keeps each group's count equal to its records through interleaved groups, replays across them and purges", async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 8, maxCachedSpans: 40 });
    for (let taskId = 1; taskId <= 4; taskId++) {
      const expiresAt = taskId === 2 ? 50 : 99;
      for (let group = 0; group < 3; group++)
        for (let b = 0; b < 6; b++) {
          const uins = Uint32Array.from({ length: 30 }, (_, i) => ((b * 30 + i) * 3 + group) * 11 + taskId);
          await store.append(taskId, expiresAt, uins, { group });
        }
      // Group 1's second and third batches again, as one batch: merges two records of that group only.
      const replay = Uint32Array.from({ length: 60 }, (_, i) => ((30 + i) * 3 + 1) * 11 + taskId);
      await store.append(taskId, expiresAt, replay, { group: 1 });
      await store.append(taskId, expiresAt, replay.subarray(0, 5));
    }
    expect((await scan(store, 3)).length).toBe(3 * 6 * 30);
    await store.purgeExpired(60, 1000);
    expect(await scan(store, 2)).toEqual([]);
    await store.close();
    const { counted, records } = await countsOnDisk(dir.path);
    expect(counted).toEqual(records);
    expect([...records.keys()].some((at) => at.startsWith('2/'))).toBe(false);
  });

  it('reads again the spans of an older task of a scope that a newer task rewrote', async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 16 });
    const scope = { collapseScope: 'acme\u0000score' };
    await store.append(1, 99, u32(10, 11), scope);
    // Task 2 takes both users: task 1's record is gone.
    await store.append(2, 99, u32(10, 11), scope);
    await store.append(1, 99, u32(11, 12), scope);
    // Meets only the record [12] on disk (the one [10, 11] was deleted by the collapse).
    await store.append(1, 99, u32(5, 12), scope);
    expect(await scan(store, 1)).toEqual([5, 12]);
    expect(await scan(store, 2)).toEqual([10, 11]);
    expect(await store.pending(10)).toEqual([{ taskId: 2, expiresAt: 99 }]);
    await store.close();
    const { counted, records } = await countsOnDisk(dir.path);
    expect(counted).toEqual(records);
  });

  it('appends afresh to a task purged in the same process', async () => {
    const store = await LevelOfflineStore.open(dir.path, { rangeBits: 16 });
    await store.append(7, 50, u32(1, 2, 3));
    expect(await store.purgeExpired(60, 1000)).toMatchObject({ entries: 3, done: true });
    await store.append(7, 50, u32(2, 4));
    expect(await scan(store, 7)).toEqual([2, 4]);
    expect(await store.pending(1)).toEqual([]);
    expect(await store.pending(4)).toEqual([{ taskId: 7, expiresAt: 50 }]);
    await store.close();
    const { counted, records } = await countsOnDisk(dir.path);
    expect(counted).toEqual(records);
  });
});
