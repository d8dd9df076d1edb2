import { ErrorCodes } from '@herald/core';
import type { ConfirmedBatchLog } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { useFreshStore, type StoreFactory } from '../store-factory';

const NOW = 1_700_000_000_000;
const LATER = NOW + 86_400_000;

/**
 * The ConfirmedBatchLog contract as tests. Every adapter's test file calls
 * this with a factory that opens a fresh, empty log; each test gets its own.
 *
 * @example
 *   confirmedBatchLogConformance('LevelConfirmedBatchLog', async () => {
 *     const dir = await makeTempDir('herald-confirmed-');
 *     return { store: await LevelConfirmedBatchLog.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function confirmedBatchLogConformance(name: string, open: StoreFactory<ConfirmedBatchLog>): void {
  describe(`ConfirmedBatchLog conformance: ${name}`, () => {
    const log = useFreshStore(open);

    it('returns what was recorded for exactly (task, unit, offset), and nothing for a key never recorded', async () => {
      await log().record(7, 2, 4096, { to: 8192, delivered: 1200, offline: 2896 }, LATER);
      expect(await log().get(7, 2, 4096)).toEqual({ to: 8192, delivered: 1200, offline: 2896 });
      expect(await log().get(7, 2, 0)).toBeUndefined();
      expect(await log().get(7, 3, 4096)).toBeUndefined();
      expect(await log().get(8, 2, 4096)).toBeUndefined();
    });

    it('keeps the batches of one unit apart by offset, and units and tasks apart', async () => {
      for (let offset = 0; offset < 40; offset += 10)
        await log().record(1, 0, offset, { to: offset + 10, delivered: offset, offline: 10 - (offset % 10) }, LATER);
      await log().record(1, 1, 0, { to: 5, delivered: 5, offline: 0 }, LATER);
      await log().record(2, 0, 0, { to: 3, delivered: 0, offline: 3 }, LATER);
      expect(await log().get(1, 0, 30)).toEqual({ to: 40, delivered: 30, offline: 10 });
      expect(await log().get(1, 1, 0)).toEqual({ to: 5, delivered: 5, offline: 0 });
      expect(await log().get(2, 0, 0)).toEqual({ to: 3, delivered: 0, offline: 3 });
    });

    it('replaces a record of the same key (a batch cut differently when its unit ran again)', async () => {
      await log().record(3, 0, 100, { to: 200, delivered: 10, offline: 90 }, LATER);
      await log().record(3, 0, 100, { to: 150, delivered: 5, offline: 45 }, LATER);
      expect(await log().get(3, 0, 100)).toEqual({ to: 150, delivered: 5, offline: 45 });
    });

    it('answers with what was recorded last, whether or not the unit was asked before', async () => {
      expect(await log().get(5, 0, 0)).toBeUndefined();
      await log().record(5, 0, 0, { to: 100, delivered: 60, offline: 40 }, LATER);
      expect(await log().get(5, 0, 0)).toEqual({ to: 100, delivered: 60, offline: 40 });
      await log().record(5, 0, 0, { to: 50, delivered: 30, offline: 20 }, LATER);
      expect(await log().get(5, 0, 0)).toEqual({ to: 50, delivered: 30, offline: 20 });
      await log().record(5, 0, 50, { to: 100, delivered: 1, offline: 49 }, NOW - 1);
      expect(await log().prune(NOW)).toBe(2);
      expect(await log().get(5, 0, 0)).toBeUndefined();
      expect(await log().get(5, 0, 50)).toBeUndefined();
    });

    it('misses no record written while the unit is first asked for', async () => {
      const records = Array.from({ length: 20 }, (_, i) =>
        log().record(6, 1, i * 10, { to: (i + 1) * 10, delivered: i, offline: 20 - i }, LATER),
      );
      const asked = Array.from({ length: 20 }, (_, i) => log().get(6, 1, i * 10));
      await Promise.all([...records, ...asked]);
      for (let i = 0; i < 20; i++)
        expect(await log().get(6, 1, i * 10)).toEqual({ to: (i + 1) * 10, delivered: i, offline: 20 - i });
    });

    it('keeps the newer of two records of a batch when the second is written while the unit is first asked for', async () => {
      for (let unitNo = 0; unitNo < 40; unitNo++) {
        await log().record(10, unitNo, 0, { to: 200, delivered: 1, offline: 199 }, LATER);
        await Promise.all([
          log().get(10, unitNo, 0),
          log().record(10, unitNo, 0, { to: 100, delivered: 2, offline: 98 }, LATER),
        ]);
        expect(await log().get(10, unitNo, 0)).toEqual({ to: 100, delivered: 2, offline: 98 });
      }
    });

    it('hands out copies: changing what get returned changes nothing stored', async () => {
      await log().record(9, 0, 0, { to: 10, delivered: 4, offline: 6 }, LATER);
      const got = await log().get(9, 0, 0);
      got!.delivered = 999;
      expect(await log().get(9, 0, 0)).toEqual({ to: 10, delivered: 4, offline: 6 });
    });

    it('holds the extremes of each field: task ids past 2^32, offsets up to 2^32, zero counts', async () => {
      const taskId = 2 ** 40 + 5;
      await log().record(taskId, 0xffff, 0xfffff000, { to: 2 ** 32, delivered: 0, offline: 0 }, LATER);
      expect(await log().get(taskId, 0xffff, 0xfffff000)).toEqual({ to: 2 ** 32, delivered: 0, offline: 0 });
      expect(await log().get(5, 0xffff, 0xfffff000)).toBeUndefined();
    });

    it('prunes the records of expired tasks only, and says how many it dropped', async () => {
      await log().record(1, 0, 0, { to: 10, delivered: 1, offline: 9 }, NOW - 1);
      await log().record(1, 1, 0, { to: 10, delivered: 2, offline: 8 }, NOW - 1);
      await log().record(2, 0, 0, { to: 10, delivered: 3, offline: 7 }, NOW);
      await log().record(3, 0, 0, { to: 10, delivered: 4, offline: 6 }, NOW + 1);
      expect(await log().prune(NOW)).toBe(3);
      expect(await log().get(1, 0, 0)).toBeUndefined();
      expect(await log().get(1, 1, 0)).toBeUndefined();
      expect(await log().get(2, 0, 0)).toBeUndefined();
      expect(await log().get(3, 0, 0)).toEqual({ to: 10, delivered: 4, offline: 6 });
      expect(await log().prune(NOW)).toBe(0);
    });

    it('refuses calls after close with STORE_CLOSED', async () => {
      const opened = await open();
      try {
        await opened.store.close();
        await rejectsWithCode(opened.store.get(1, 0, 0), ErrorCodes.STORE_CLOSED);
        await rejectsWithCode(
          opened.store.record(1, 0, 0, { to: 1, delivered: 1, offline: 0 }, LATER),
          ErrorCodes.STORE_CLOSED,
        );
        await rejectsWithCode(opened.store.prune(NOW), ErrorCodes.STORE_CLOSED);
      } finally {
        await opened.cleanup();
      }
    });
  });
}
