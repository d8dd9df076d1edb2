import type { OfflineStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { spreadUins } from '../random';
import { scanAll, taskIdsOf } from './reads';
import { LARGE_CASE_MS } from './reads';

const EXPIRES = 1_700_086_400_000;
const u32 = (...uins: number[]): Uint32Array => Uint32Array.from(uins);

/** Purges until the store says done, a call at a time with `maxRecords`; the calls and what they removed. */
async function purgeAll(store: OfflineStore, now: number, maxRecords: number) {
  let calls = 0;
  let entries = 0;
  for (;;) {
    const purge = await store.purgeExpired(now, maxRecords);
    calls++;
    entries += purge.entries;
    if (purge.done) return { calls, entries };
    if (calls > 10_000) throw new Error('purgeExpired never said done');
  }
}

/** The collapse-scope and purge parts of the OfflineStore contract (called by offlineStoreConformance). */
export function collapseAndPurgeConformance(store: () => OfflineStore): void {
  describe('collapse scopes', () => {
    const scope = { collapseScope: 'acme\u0000score' };

    it('keeps each user only the newest task of a scope, whatever order the appends come in', async () => {
      await store().append(10, EXPIRES, u32(1, 2, 3), scope);
      await store().append(30, EXPIRES, u32(2, 5), scope);
      // Older than 30, appended after it: users 2 and 5 already have the newer entry.
      await store().append(20, EXPIRES, u32(1, 2, 5, 7), scope);
      expect(await taskIdsOf(store(), 1)).toEqual([20]);
      expect(await taskIdsOf(store(), 2)).toEqual([30]);
      expect(await taskIdsOf(store(), 3)).toEqual([10]);
      expect(await taskIdsOf(store(), 5)).toEqual([30]);
      expect(await taskIdsOf(store(), 7)).toEqual([20]);
      expect(await scanAll(store(), 10)).toEqual([3]);
      expect(await scanAll(store(), 20)).toEqual([1, 7]);
      expect(await scanAll(store(), 30)).toEqual([2, 5]);
    });

    it('leaves tasks of other scopes and without a scope alone', async () => {
      await store().append(1, EXPIRES, u32(4, 8));
      await store().append(2, EXPIRES, u32(4, 8), { collapseScope: 'other\u0000score' });
      await store().append(3, EXPIRES, u32(4), scope);
      await store().append(4, EXPIRES, u32(4, 8), scope);
      expect(await taskIdsOf(store(), 4)).toEqual([1, 2, 4]);
      expect(await taskIdsOf(store(), 8)).toEqual([1, 2, 4]);
    });

    it('does not give back an older entry to a user whose newer one was delivered', async () => {
      await store().append(50, EXPIRES, u32(9), scope);
      await store().acknowledge(9, [50]);
      await store().append(40, EXPIRES, u32(9), scope);
      expect(await store().pending(9)).toEqual([]);
    });

    it(
      'supersedes over large batches spread over the uin space, and a replay changes nothing',
      async () => {
        const older = spreadUins(11, 20_000);
        const newer = older.filter((_, i) => i % 3 === 0);
        await store().append(100, EXPIRES, older, scope);
        await store().append(200, EXPIRES, newer, scope);
        await store().append(100, EXPIRES, older, scope);
        const newerSet = new Set(newer);
        expect(await scanAll(store(), 100)).toEqual([...older].filter((uin) => !newerSet.has(uin)));
        expect(await scanAll(store(), 200)).toEqual([...newer]);
        for (let i = 0; i < older.length; i += 997)
          expect(await taskIdsOf(store(), older[i]!)).toEqual([newerSet.has(older[i]!) ? 200 : 100]);
      },
      LARGE_CASE_MS,
    );

    it('refuses an empty or non-string scope', async () => {
      await rejectsWithCode(store().append(1, EXPIRES, u32(1), { collapseScope: '' }), 'VALIDATION_FAILED');
      await rejectsWithCode(
        store().append(1, EXPIRES, u32(1), { collapseScope: 7 as unknown as string }),
        'VALIDATION_FAILED',
      );
    });
  });

  describe('purgeExpired', () => {
    it('removes expired tasks whole (pending, scanTask, acknowledged entries) and keeps the rest', async () => {
      const uins = spreadUins(5, 3000);
      await store().append(1, EXPIRES, uins);
      await store().append(2, EXPIRES + 1000, uins.subarray(0, 100), { collapseScope: 'a\u0000k' });
      await store().append(3, EXPIRES + 60_000, u32(uins[0]!, uins[1]!));
      await store().acknowledge(uins[0]!, [1]);
      const { entries } = await purgeAll(store(), EXPIRES + 1000, 1_000_000);
      // Every entry of tasks 1 and 2, the acknowledged one included (its record held it until now).
      expect(entries).toBe(3000 + 100);
      expect(await scanAll(store(), 1)).toEqual([]);
      expect(await scanAll(store(), 2)).toEqual([]);
      expect(await store().pending(uins[0]!)).toEqual([{ taskId: 3, expiresAt: EXPIRES + 60_000 }]);
      expect(await store().pending(uins[2]!)).toEqual([]);
      // Purged means gone: acknowledging it writes nothing, appending again brings it back.
      await store().append(1, EXPIRES, u32(uins[2]!));
      expect(await taskIdsOf(store(), uins[2]!)).toEqual([1]);
    });

    it('keeps a task expiring after now, fractions of a ms included', async () => {
      await store().append(1, EXPIRES + 0.5, u32(1));
      expect((await store().purgeExpired(EXPIRES, 100)).entries).toBe(0);
      expect(await taskIdsOf(store(), 1)).toEqual([1]);
      expect((await store().purgeExpired(EXPIRES + 0.5, 100)).entries).toBe(1);
      expect(await taskIdsOf(store(), 1)).toEqual([]);
    });

    it('stops at about maxRecords a call and carries on where it stopped', async () => {
      let appended = 0;
      for (let t = 1; t <= 5; t++) {
        const users = new Set<number>();
        for (let b = 0; b < 8; b++) {
          const batch = spreadUins(t * 100 + b, 64);
          batch.forEach((uin) => users.add(uin));
          await store().append(t, EXPIRES, batch);
        }
        appended += users.size;
      }
      // Every task has at least one record, so a call with a bound of one record purges at most one task.
      const { calls, entries } = await purgeAll(store(), EXPIRES, 1);
      expect(calls).toBeGreaterThan(5);
      expect(entries).toBe(appended);
      for (let t = 1; t <= 5; t++) expect(await scanAll(store(), t)).toEqual([]);
      expect(await store().purgeExpired(EXPIRES, 1)).toEqual({ entries: 0, records: 0, done: true });
    });

    it('refuses a bad now or maxRecords', async () => {
      await rejectsWithCode(store().purgeExpired(Number.NaN, 10), 'VALIDATION_FAILED');
      await rejectsWithCode(store().purgeExpired(EXPIRES, 0), 'VALIDATION_FAILED');
    });
  });
}
