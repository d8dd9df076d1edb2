import type { OfflineStore } from '@herald/core/ports';
import type { OpenedStore } from '../store-factory';
import { scanAll, taskIdsOf } from './reads';

/** A fresh, empty offline store, and a way to open the same storage again after `close` (an executor restart). */
export interface OpenedOfflineStore extends OpenedStore<OfflineStore> {
  reopen(): Promise<OfflineStore>;
}

export type OfflineStoreFactory = () => Promise<OpenedOfflineStore>;

const EXPIRES = 1_700_086_400_000;

/**
 * 3,000 users close together (every 7th uin), so that a store cutting the uin
 * space into ranges has many users of each group in one range: the case where
 * a range holds several groups of one task.
 */
const everyone = Uint32Array.from({ length: 3000 }, (_, i) => 3 + i * 7);

/** The members of one of `groups` interleaved groups (by position, as a local-time task's). */
const groupOf = (group: number, groups: number) => everyone.filter((_, i) => i % groups === group);

/** Appends `uins` in sorted batches of `batch` under `group`. */
async function appendInBatches(store: OfflineStore, taskId: number, uins: Uint32Array, group?: number): Promise<void> {
  for (let at = 0; at < uins.length; at += 97) {
    const part = uins.subarray(at, at + 97);
    await (group === undefined ? store.append(taskId, EXPIRES, part) : store.append(taskId, EXPIRES, part, { group }));
  }
}

/**
 * What the OfflineStore contract promises across a restart: a store opened
 * again on the same storage answers as the one closed did, and appends to a
 * task begun before the restart (a later group, a replay, a batch without a
 * group) keep every entry of it findable. The answers are the same whatever
 * the adapter keeps in memory: these tests fail an adapter that rebuilds its
 * view of a task from less than what it wrote.
 */
export function offlineRestartConformance(name: string, open: OfflineStoreFactory): void {
  describe(`OfflineStore across a restart: ${name}`, () => {
    let opened: OpenedOfflineStore | undefined;
    let current: OfflineStore | undefined;
    const store = () => current!;
    const restart = async () => {
      await current!.close();
      current = await opened!.reopen();
    };
    beforeEach(async () => {
      opened = await open();
      current = opened.store;
    });
    afterEach(async () => {
      try {
        await current?.close();
      } finally {
        await opened?.cleanup();
        opened = current = undefined;
      }
    });

    /** Every user of the task is pending for it, and its scan lists exactly `expected`. */
    async function expectHeld(taskId: number, expected: ArrayLike<number> & Iterable<number>): Promise<void> {
      expect(await scanAll(store(), taskId)).toEqual([...expected]);
      // Every 7th user: 7 is prime to the 3 and 5 groups the tests use, so each group is asked about.
      const missing: number[] = [];
      for (let i = 0; i < expected.length; i += 7)
        if (!(await taskIdsOf(store(), expected[i]!)).includes(taskId)) missing.push(expected[i]!);
      expect(missing).toEqual([]);
    }

    it("finds the earlier groups' users after a later group is appended following a restart", async () => {
      for (let group = 0; group < 4; group++) await appendInBatches(store(), 7, groupOf(group, 5), group);
      await restart();
      await appendInBatches(store(), 7, groupOf(4, 5), 4);
      await expectHeld(7, everyone);
      await restart();
      await expectHeld(7, everyone);
    });

    it('finds users appended without a group and with one, in either order, across restarts', async () => {
      await appendInBatches(store(), 7, groupOf(0, 3));
      await appendInBatches(store(), 8, groupOf(0, 3), 0);
      await restart();
      await appendInBatches(store(), 7, groupOf(1, 3), 1);
      await appendInBatches(store(), 8, groupOf(1, 3));
      await restart();
      await appendInBatches(store(), 7, groupOf(2, 3), 2);
      await appendInBatches(store(), 8, groupOf(2, 3), 2);
      await expectHeld(7, everyone);
      await expectHeld(8, everyone);
    });

    it('changes nothing when batches written before a restart are replayed after it, under any group', async () => {
      for (let group = 0; group < 3; group++) await appendInBatches(store(), 7, groupOf(group, 3), group);
      await restart();
      await appendInBatches(store(), 7, groupOf(1, 3), 1);
      await appendInBatches(store(), 7, groupOf(2, 3), 0);
      await appendInBatches(store(), 7, groupOf(0, 3));
      await expectHeld(7, everyone);
    });

    it('acknowledges a user of any group after a restart, and keeps the acknowledgement over a later append', async () => {
      for (let group = 0; group < 3; group++) await appendInBatches(store(), 7, groupOf(group, 3), group);
      await restart();
      const acked = [everyone[0]!, everyone[1]!, everyone[2]!, everyone[2999]!];
      for (const uin of acked) await store().acknowledge(uin, [7]);
      await appendInBatches(store(), 7, everyone.subarray(0, 10), 1);
      await restart();
      for (const uin of acked) expect(await taskIdsOf(store(), uin)).toEqual([]);
      expect(await scanAll(store(), 7)).toEqual([...everyone].filter((uin) => !acked.includes(uin)));
    });

    it('purges every group of an expired task after a restart, and appends to it again from nothing', async () => {
      for (let group = 0; group < 3; group++) await appendInBatches(store(), 7, groupOf(group, 3), group);
      await store().append(9, EXPIRES + 10, everyone.subarray(0, 1));
      await restart();
      for (;;) if ((await store().purgeExpired(EXPIRES, 50)).done) break;
      expect(await scanAll(store(), 7)).toEqual([]);
      expect(await taskIdsOf(store(), everyone[0]!)).toEqual([9]);
      expect(await taskIdsOf(store(), everyone[1]!)).toEqual([]);
      // Appended again (a late replay), the task holds only what came after the purge.
      await appendInBatches(store(), 7, groupOf(1, 3), 1);
      await restart();
      await expectHeld(7, groupOf(1, 3));
    });

    it('keeps a collapse scope whole across a restart: a newer task supersedes what the older one held before it', async () => {
      const scope = 'acme\u0000restart';
      await store().append(10, EXPIRES, everyone.subarray(0, 100), { collapseScope: scope, group: 0 });
      await restart();
      await store().append(10, EXPIRES, everyone.subarray(100, 200), { collapseScope: scope, group: 1 });
      await store().append(11, EXPIRES, everyone.subarray(50, 150), { collapseScope: scope, group: 3 });
      await restart();
      expect(await scanAll(store(), 10)).toEqual([...everyone.subarray(0, 50), ...everyone.subarray(150, 200)]);
      expect(await taskIdsOf(store(), everyone[120]!)).toEqual([11]);
      expect(await taskIdsOf(store(), everyone[10]!)).toEqual([10]);
    });
  });
}
