import { rejectsWithCode } from '../assertions';
import { mulberry32 } from '@herald/core';
import type { OfflineStore } from '@herald/core/ports';
import { spreadUins } from '../random';
import { useFreshStore, type StoreFactory } from '../store-factory';
import { collapseAndPurgeConformance } from './collapse-and-purge';
import { groupsConformance } from './groups';
import { LARGE_CASE_MS } from './reads';

const MAX_UIN = 0xffffffff;
const EXPIRES = 1_700_086_400_000;

/** Collects everything scanTask yields, checking each chunk is a Uint32Array. */
async function scanAll(store: OfflineStore, taskId: number): Promise<number[]> {
  const out: number[] = [];
  let allUint32 = true;
  for await (const chunk of store.scanTask(taskId)) {
    allUint32 &&= chunk instanceof Uint32Array;
    for (let i = 0; i < chunk.length; i++) out.push(chunk[i]!);
  }
  expect(allUint32).toBe(true);
  return out;
}

function sortedUnion(...lists: readonly (readonly number[] | Uint32Array)[]): number[] {
  const set = new Set<number>();
  for (const list of lists) for (const uin of list) set.add(uin);
  return [...set].sort((a, b) => a - b);
}

const u32 = (...uins: number[]): Uint32Array => Uint32Array.from(uins);

/**
 * The OfflineStore contract as tests. Every adapter's test file calls this
 * with a factory that opens a fresh, empty store; each test gets its own.
 *
 * @example
 *   offlineStoreConformance('LevelOfflineStore', async () => {
 *     const dir = await makeTempDir('herald-offline-');
 *     return { store: await LevelOfflineStore.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function offlineStoreConformance(name: string, open: StoreFactory<OfflineStore>): void {
  describe(`OfflineStore conformance: ${name}`, () => {
    const store = useFreshStore(open);

    /** Task 30, then 10, then 20: pending order must follow task ids, not append order. */
    async function threeTasks(): Promise<void> {
      await store().append(30, EXPIRES + 30, u32(5, 10, 15));
      await store().append(10, EXPIRES + 10, u32(10, 20));
      await store().append(20, EXPIRES + 20, u32(1, 10, 1000));
    }

    collapseAndPurgeConformance(store);
    groupsConformance(store);

    it('estimates its size on disk as a non-negative integer, where the adapter can (approximateBytes is optional)', async () => {
      await threeTasks();
      const adapter = store();
      if (adapter.approximateBytes === undefined) return;
      const bytes = await adapter.approximateBytes();
      expect(Number.isSafeInteger(bytes) && bytes >= 0).toBe(true);
    });

    describe('append and pending', () => {
      it("lists a user's tasks oldest (smallest task id) first, with expiresAt", async () => {
        await threeTasks();
        expect(await store().pending(10)).toEqual([
          { taskId: 10, expiresAt: EXPIRES + 10 },
          { taskId: 20, expiresAt: EXPIRES + 20 },
          { taskId: 30, expiresAt: EXPIRES + 30 },
        ]);
        expect(await store().pending(5)).toEqual([{ taskId: 30, expiresAt: EXPIRES + 30 }]);
        expect(await store().pending(20)).toEqual([{ taskId: 10, expiresAt: EXPIRES + 10 }]);
        expect(await store().pending(1000)).toEqual([{ taskId: 20, expiresAt: EXPIRES + 20 }]);
      });

      it('has nothing for users never appended', async () => {
        expect(await store().pending(10)).toEqual([]);
        await threeTasks();
        for (const uin of [0, 2, 11, 14, 16, 999, 1001, 65_546, MAX_UIN])
          expect(await store().pending(uin)).toEqual([]);
      });

      it('orders task ids numerically, beyond 2^32 too', async () => {
        const ids = [2 ** 33, 7, 300, 2 ** 32 + 1, 2 ** 40];
        for (const taskId of ids) await store().append(taskId, EXPIRES, u32(42));
        expect((await store().pending(42)).map((e) => e.taskId)).toEqual([7, 300, 2 ** 32 + 1, 2 ** 33, 2 ** 40]);
        expect(await scanAll(store(), 2 ** 40)).toEqual([42]);
        expect(await scanAll(store(), 2 ** 40 + 1)).toEqual([]);
      });

      it('is idempotent: appending the same (task, uins) twice leaves one entry each', async () => {
        const uins = u32(3, 300, 70_000, 5_000_000);
        await store().append(1, EXPIRES, uins);
        await store().append(1, EXPIRES, uins);
        for (const uin of uins) expect(await store().pending(uin)).toEqual([{ taskId: 1, expiresAt: EXPIRES }]);
        expect(await scanAll(store(), 1)).toEqual([...uins]);
      });

      it('keeps the union of overlapping batches of one task, each uin once', async () => {
        const batches = [
          u32(10, 20, 30, 40),
          u32(15, 25, 35),
          u32(5, 45),
          u32(20, 30),
          u32(10, 30, 50),
          u32(1, 100_000, 2 ** 31),
        ];
        for (const batch of batches) await store().append(9, EXPIRES, batch);
        const union = sortedUnion(...batches);
        for (const uin of union) expect(await store().pending(uin)).toEqual([{ taskId: 9, expiresAt: EXPIRES }]);
        for (const uin of [0, 11, 21, 41, 46, 99_999, 2 ** 31 - 1]) expect(await store().pending(uin)).toEqual([]);
        expect(await scanAll(store(), 9)).toEqual(union);
      });

      it('keeps the union when overlapping batches of one task arrive concurrently', async () => {
        const batches = Array.from({ length: 8 }, (_, k) => Uint32Array.from({ length: 50 }, (_, i) => i * 8 + k));
        await Promise.all(batches.map((b) => store().append(4, EXPIRES, b)));
        expect(await scanAll(store(), 4)).toEqual(sortedUnion(...batches));
        for (const uin of [0, 7, 199, 399])
          expect(await store().pending(uin)).toEqual([{ taskId: 4, expiresAt: EXPIRES }]);
      });

      it('accepts uin 0 and 2^32-1', async () => {
        await store().append(1, EXPIRES, u32(0, 1, MAX_UIN - 1, MAX_UIN));
        expect(await store().pending(0)).toEqual([{ taskId: 1, expiresAt: EXPIRES }]);
        expect(await store().pending(MAX_UIN)).toEqual([{ taskId: 1, expiresAt: EXPIRES }]);
        expect(await scanAll(store(), 1)).toEqual([0, 1, MAX_UIN - 1, MAX_UIN]);
        await store().acknowledge(0, [1]);
        await store().acknowledge(MAX_UIN, [1]);
        expect(await store().pending(0)).toEqual([]);
        expect(await store().pending(MAX_UIN)).toEqual([]);
        expect(await scanAll(store(), 1)).toEqual([1, MAX_UIN - 1]);
      });

      it('treats an empty batch as nothing to do', async () => {
        await store().append(1, EXPIRES, new Uint32Array(0));
        expect(await scanAll(store(), 1)).toEqual([]);
      });

      it('reads a batch given as a subarray of a larger buffer', async () => {
        const backing = u32(1, 2, 3, 4, 5, 6, 7);
        await store().append(1, EXPIRES, backing.subarray(2, 5));
        backing.fill(0);
        expect(await scanAll(store(), 1)).toEqual([3, 4, 5]);
      });

      it('rejects an unsorted batch with VALIDATION_FAILED and stores nothing', async () => {
        await rejectsWithCode(store().append(1, EXPIRES, u32(5, 3, 9)), 'VALIDATION_FAILED');
        expect(await store().pending(5)).toEqual([]);
        expect(await scanAll(store(), 1)).toEqual([]);
      });

      it('rejects a uin outside [0, 2^32) with VALIDATION_FAILED', async () => {
        for (const uin of [-1, 2 ** 32, 1.5, Number.NaN]) {
          await rejectsWithCode(store().pending(uin), 'VALIDATION_FAILED');
          await rejectsWithCode(store().acknowledge(uin, [1]), 'VALIDATION_FAILED');
        }
      });
    });

    describe('acknowledge', () => {
      it("removes only that user's entries for those tasks", async () => {
        await threeTasks();
        await store().acknowledge(10, [10, 30]);
        expect(await store().pending(10)).toEqual([{ taskId: 20, expiresAt: EXPIRES + 20 }]);
        expect(await store().pending(20)).toEqual([{ taskId: 10, expiresAt: EXPIRES + 10 }]);
        expect(await store().pending(5)).toEqual([{ taskId: 30, expiresAt: EXPIRES + 30 }]);
        expect(await scanAll(store(), 10)).toEqual([20]);
        expect(await scanAll(store(), 30)).toEqual([5, 15]);
        expect(await scanAll(store(), 20)).toEqual([1, 10, 1000]);
        await store().acknowledge(10, [20]);
        expect(await store().pending(10)).toEqual([]);
      });

      it('is idempotent, and acknowledging an entry the user does not have changes nothing', async () => {
        await threeTasks();
        await store().acknowledge(5, [30]);
        await store().acknowledge(5, [30, 30]);
        await store().acknowledge(7, [10, 20, 30, 99]);
        await store().acknowledge(10, []);
        expect(await store().pending(5)).toEqual([]);
        expect(await store().pending(10)).toHaveLength(3);
        await store().append(10, EXPIRES + 10, u32(7));
        expect(await store().pending(7)).toEqual([{ taskId: 10, expiresAt: EXPIRES + 10 }]);
      });

      it('is not undone by replaying the batch (a crash after the append)', async () => {
        const uins = u32(10, 20, 30);
        await store().append(1, EXPIRES, uins);
        await store().acknowledge(20, [1]);
        await store().append(1, EXPIRES, uins);
        expect(await store().pending(20)).toEqual([]);
        expect(await scanAll(store(), 1)).toEqual([10, 30]);
      });
    });

    describe('scanTask', () => {
      it('yields nothing for a task never appended', async () => {
        await threeTasks();
        expect(await scanAll(store(), 11)).toEqual([]);
      });

      it("yields exactly the task's pending uins, ascending, across many batches and ranges", async () => {
        const next = mulberry32(7);
        const batches: Uint32Array[] = [];
        for (let b = 0; b < 30; b++) batches.push(spreadUins(1000 + b, 300));
        for (let b = 0; b < 10; b++) {
          const base = next() >>> 1;
          batches.push(Uint32Array.from({ length: 200 }, (_, i) => base + i * 3));
        }
        for (const batch of batches) await store().append(77, EXPIRES, batch);
        await store().append(78, EXPIRES, spreadUins(99, 500));
        const union = sortedUnion(...batches);
        const acked = new Set<number>();
        for (let i = 0; i < union.length; i += 17) acked.add(union[i]!);
        for (const uin of acked) await store().acknowledge(uin, [77]);
        const expected = union.filter((uin) => !acked.has(uin));
        expect(await scanAll(store(), 77)).toEqual(expected);
        for (const uin of [...acked].slice(0, 20))
          expect((await store().pending(uin)).some((e) => e.taskId === 77)).toBe(false);
        for (const uin of expected.slice(0, 20))
          expect((await store().pending(uin)).some((e) => e.taskId === 77)).toBe(true);
      });

      it('yields every record when one range holds many large batches (each record bigger than a read chunk)', async () => {
        // 40 disjoint batches of 4,096 uins close together: with wide ranges they are 40 records of 16 KiB in one range.
        const batches = Array.from({ length: 40 }, (_, b) =>
          Uint32Array.from({ length: 4096 }, (_, i) => 1_000_000 + b * 3 * 4096 + 3 * i),
        );
        for (const batch of batches) await store().append(9, EXPIRES, batch);
        const scanned = await scanAll(store(), 9);
        expect(scanned.length).toBe(40 * 4096);
        expect(scanned).toEqual(sortedUnion(...batches));
      });

      it(
        'handles a large batch: 100k uins spread over the uin space',
        async () => {
          const uins = spreadUins(2024, 100_000);
          await store().append(5, EXPIRES, uins);
          const members = new Set(uins);
          for (let i = 0; i < uins.length; i += 499) {
            expect(await store().pending(uins[i]!)).toEqual([{ taskId: 5, expiresAt: EXPIRES }]);
            const neighbour = uins[i]! + 1;
            if (neighbour <= MAX_UIN && !members.has(neighbour)) expect(await store().pending(neighbour)).toEqual([]);
          }
          const scanned = Uint32Array.from(await scanAll(store(), 5));
          expect(scanned.length).toBe(uins.length);
          expect(scanned.every((uin, i) => uin === uins[i])).toBe(true);
        },
        LARGE_CASE_MS,
      );
    });
  });
}
