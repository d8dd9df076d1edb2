import { ErrorCodes, mulberry32 } from '@herald/core';
import type { FrequencyCounter, FrequencyUse } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { spreadUins } from '../random';
import type { OpenedStore } from '../store-factory';

/** A fresh, empty counter, and a way to reopen the same storage after `close` (a restart). */
export interface OpenedFrequencyCounter extends OpenedStore<FrequencyCounter> {
  reopen(): Promise<FrequencyCounter>;
}

export type FrequencyCounterFactory = () => Promise<OpenedFrequencyCounter>;

/** 2024-03-10 as a UTC day number; the suite's "today". */
const DAY = 19_792;
const MAX_UIN = 0xffffffff;

const u32 = (...uins: number[]): Uint32Array => Uint32Array.from(uins);
const use = (taskId: number, day: number, ...uins: number[]): FrequencyUse => ({ taskId, day, uins: u32(...uins) });

/**
 * The FrequencyCounter contract (core ports/frequency-counter.ts) as tests.
 * Every adapter's test file calls this with a factory that opens a fresh,
 * empty counter and can reopen it after close; each test gets its own.
 * Assumes the adapter keeps at least two days (today and yesterday).
 *
 * @example
 *   frequencyCounterConformance('LevelFrequencyCounter', async () => {
 *     const dir = await makeTempDir('herald-frequency-');
 *     return {
 *       store: await LevelFrequencyCounter.open(dir.path),
 *       reopen: () => LevelFrequencyCounter.open(dir.path),
 *       cleanup: dir.remove,
 *     };
 *   });
 */
export function frequencyCounterConformance(name: string, open: FrequencyCounterFactory): void {
  describe(`FrequencyCounter conformance: ${name}`, () => {
    let opened: OpenedFrequencyCounter | undefined;
    let current: FrequencyCounter | undefined;
    beforeEach(async () => {
      opened = await open();
      current = opened.store;
    });
    afterEach(async () => {
      const [o, c] = [opened, current];
      opened = undefined;
      current = undefined;
      if (o === undefined) return;
      try {
        await c?.close();
      } finally {
        await o.cleanup();
      }
    });
    const counter = (): FrequencyCounter => {
      if (current === undefined) throw new Error('conformance: no counter is open (used outside a test?)');
      return current;
    };
    /** Closes the counter and opens the same storage again, as a restarted process would. */
    async function restart(): Promise<void> {
      const c = counter();
      current = undefined;
      await c.close();
      current = await opened!.reopen();
    }
    const usedOf = async (day: number, ...uins: number[]) => [...(await counter().used(u32(...uins), day))];

    describe('used', () => {
      it('answers 0 for every user when nothing was counted, aligned with the input, as a Uint32Array', async () => {
        const counts = await counter().used(u32(0, 1, 42, MAX_UIN), DAY);
        expect(counts).toBeInstanceOf(Uint32Array);
        expect([...counts]).toEqual([0, 0, 0, 0]);
        expect([...(await counter().used(new Uint32Array(0), DAY))]).toEqual([]);
      });

      it('counts distinct tasks per user and day', async () => {
        await counter().consume([use(1, DAY, 1, 5, 9), use(2, DAY, 5, 9)]);
        await counter().consume([use(3, DAY, 9)]);
        expect(await usedOf(DAY, 0, 1, 5, 9, 10)).toEqual([0, 1, 2, 3, 0]);
      });

      it('gives duplicates in a query the same count, each in its place', async () => {
        await counter().consume([use(1, DAY, 7, 8), use(2, DAY, 8)]);
        expect(await usedOf(DAY, 7, 7, 8, 8, 8, 9)).toEqual([1, 1, 2, 2, 2, 0]);
      });

      it('matches a model on a large random batch, with absent users between present ones', async () => {
        const users = spreadUins(11, 3000);
        const next = mulberry32(5);
        const model = new Map<number, number>();
        const uses: FrequencyUse[] = [];
        for (let taskId = 1; taskId <= 9; taskId++) {
          const picked = users.filter(() => next() % 3 === 0);
          for (const uin of picked) model.set(uin, (model.get(uin) ?? 0) + 1);
          uses.push({ taskId, day: DAY, uins: picked });
        }
        await counter().consume(uses);
        const query = spreadUins(12, 3000);
        const merged = Uint32Array.from([...users, ...query]).sort();
        const counts = await counter().used(merged, DAY);
        expect([...counts]).toEqual([...merged].map((uin) => model.get(uin) ?? 0));
      });

      it('reads users at the ends of the uin space', async () => {
        await counter().consume([use(1, DAY, 0, MAX_UIN), use(2, DAY, MAX_UIN)]);
        expect(await usedOf(DAY, 0, 1, MAX_UIN - 1, MAX_UIN)).toEqual([1, 0, 0, 2]);
      });
    });

    describe('consume', () => {
      it('is idempotent by (uin, day, task): a replayed report never counts twice', async () => {
        const report = [use(1, DAY, 3, 4, 5), use(2, DAY, 4)];
        await counter().consume(report);
        await counter().consume(report);
        // The same task again, cut into other batches, and a duplicate entry in one call.
        await counter().consume([use(1, DAY, 3), use(1, DAY, 4, 5, 6), use(1, DAY, 6)]);
        expect(await usedOf(DAY, 3, 4, 5, 6)).toEqual([1, 2, 1, 1]);
      });

      it('counts a uin repeated inside one batch once', async () => {
        await counter().consume([use(1, DAY, 2, 2, 2, 3)]);
        expect(await usedOf(DAY, 2, 3)).toEqual([1, 1]);
      });

      it('keeps days apart', async () => {
        await counter().consume([use(1, DAY, 10), use(2, DAY - 1, 10, 11)]);
        expect(await usedOf(DAY - 1, 10, 11)).toEqual([1, 1]);
        expect(await usedOf(DAY, 10, 11)).toEqual([1, 0]);
        expect(await usedOf(DAY + 1, 10, 11)).toEqual([0, 0]);
      });

      it('loses nothing under concurrent calls on the same users', async () => {
        const users = spreadUins(21, 200);
        await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            counter().consume([{ taskId: 100 + i, day: DAY, uins: users.filter((_, j) => j % 20 >= i) }]),
          ),
        );
        // User j was in the batches of tasks 0..(j % 20): (j % 20) + 1 of them.
        expect([...(await counter().used(users, DAY))]).toEqual([...users].map((_, j) => (j % 20) + 1));
      });

      it('leaves the caller arrays as they were', async () => {
        const uins = u32(5, 5, 9);
        await counter().consume([{ taskId: 1, day: DAY, uins }]);
        expect([...uins]).toEqual([5, 5, 9]);
        const query = u32(5, 9);
        await counter().used(query, DAY);
        expect([...query]).toEqual([5, 9]);
      });

      it('accepts an empty call and an empty batch', async () => {
        await counter().consume([]);
        await counter().consume([use(1, DAY)]);
        expect(await usedOf(DAY, 0)).toEqual([0]);
      });

      it('takes task ids beyond 2^32', async () => {
        await counter().consume([use(2 ** 40, DAY, 1), use(2 ** 32, DAY, 1), use(0, DAY, 1)]);
        await counter().consume([use(2 ** 40, DAY, 1)]);
        expect(await usedOf(DAY, 1)).toEqual([3]);
      });
    });

    describe('restart', () => {
      it('keeps counts across close and reopen, and stays idempotent for reports replayed after it', async () => {
        const report = [use(1, DAY, 1, 2, 3), use(2, DAY, 2, 3), use(3, DAY - 1, 3)];
        await counter().consume(report);
        await restart();
        expect(await usedOf(DAY, 1, 2, 3)).toEqual([1, 2, 2]);
        expect(await usedOf(DAY - 1, 3)).toEqual([1]);
        // Replaying the reports stream from the start after the restart changes nothing.
        await counter().consume(report);
        expect(await usedOf(DAY, 1, 2, 3)).toEqual([1, 2, 2]);
        await counter().consume([use(4, DAY, 1)]);
        expect(await usedOf(DAY, 1, 2, 3)).toEqual([2, 2, 2]);
      });
    });

    describe('bad input and close', () => {
      it('rejects unsorted uins, a non-Uint32Array, bad days and task ids with VALIDATION_FAILED', async () => {
        const c = counter();
        await rejectsWithCode(c.used(u32(2, 1), DAY), ErrorCodes.VALIDATION_FAILED);
        await rejectsWithCode(c.used([1, 2] as unknown as Uint32Array, DAY), ErrorCodes.VALIDATION_FAILED);
        for (const day of [-1, 1.5, Number.NaN, 2 ** 32])
          await rejectsWithCode(c.used(u32(1), day), ErrorCodes.VALIDATION_FAILED);
        await rejectsWithCode(c.consume([use(1, DAY, 3, 2)]), ErrorCodes.VALIDATION_FAILED);
        await rejectsWithCode(c.consume([use(-1, DAY, 1)]), ErrorCodes.VALIDATION_FAILED);
        await rejectsWithCode(c.consume([use(1.5, DAY, 1)]), ErrorCodes.VALIDATION_FAILED);
        await rejectsWithCode(c.consume([use(1, -1, 1)]), ErrorCodes.VALIDATION_FAILED);
        await rejectsWithCode(
          c.consume([{ taskId: 1, day: DAY, uins: [1] as unknown as Uint32Array }]),
          ErrorCodes.VALIDATION_FAILED,
        );
        await rejectsWithCode(c.consume('nope' as unknown as FrequencyUse[]), ErrorCodes.VALIDATION_FAILED);
        // A call with one bad entry writes none of it.
        await rejectsWithCode(c.consume([use(1, DAY, 1), use(2, DAY, 9, 8)]), ErrorCodes.VALIDATION_FAILED);
        expect(await usedOf(DAY, 1, 8, 9)).toEqual([0, 0, 0]);
      });

      it('fails every call after close with STORE_CLOSED; a second close is a no-op', async () => {
        const c = counter();
        current = undefined;
        await c.close();
        await c.close();
        await rejectsWithCode(c.used(u32(1), DAY), ErrorCodes.STORE_CLOSED);
        await rejectsWithCode(c.consume([use(1, DAY, 1)]), ErrorCodes.STORE_CLOSED);
      });
    });
  });
}
