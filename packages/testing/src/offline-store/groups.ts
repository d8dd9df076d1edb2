import type { OfflineStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { spreadUins } from '../random';
import { scanAll, taskIdsOf } from './reads';

const EXPIRES = 1_700_086_400_000;
const u32 = (...uins: number[]): Uint32Array => Uint32Array.from(uins);

/**
 * A local-time task's recipients as its executor appends them: `groups`
 * groups, each user in one (by position, so every group spans the whole uin
 * space and the groups interleave), each group appended in sorted batches of
 * `batch` users, group after group.
 */
function groupedBatches(uins: Uint32Array, groups: number, batch: number): { group: number; uins: Uint32Array }[] {
  const out: { group: number; uins: Uint32Array }[] = [];
  for (let group = 0; group < groups; group++) {
    const members = uins.filter((_, i) => i % groups === group);
    for (let at = 0; at < members.length; at += batch) out.push({ group, uins: members.subarray(at, at + batch) });
  }
  return out;
}

/** The `group` append option (a layout hint) in the OfflineStore contract: it changes no answer. */
export function groupsConformance(store: () => OfflineStore): void {
  describe('groups (OfflineAppendOptions.group)', () => {
    const everyone = spreadUins(21, 3000);

    async function appendGrouped(taskId: number, groups = 5, batch = 97): Promise<void> {
      for (const part of groupedBatches(everyone, groups, batch))
        await store().append(taskId, EXPIRES, part.uins, { group: part.group });
    }

    it('answers for a task appended group by group as for the same users appended at once', async () => {
      await appendGrouped(7);
      await store().append(8, EXPIRES + 1, everyone);
      expect(await scanAll(store(), 7)).toEqual([...everyone]);
      for (const uin of [everyone[0]!, everyone[1]!, everyone[1500]!, everyone[2999]!])
        expect(await store().pending(uin)).toEqual([
          { taskId: 7, expiresAt: EXPIRES },
          { taskId: 8, expiresAt: EXPIRES + 1 },
        ]);
      const absent = everyone.find((uin) => !everyone.includes(uin + 1))! + 1;
      expect(await taskIdsOf(store(), absent)).toEqual([]);
    });

    it('changes nothing on a replay, under the same group, another one or none', async () => {
      await appendGrouped(7);
      const some = everyone.filter((_, i) => i % 5 === 2).subarray(0, 200);
      await store().append(7, EXPIRES, some, { group: 2 });
      await store().append(7, EXPIRES, some, { group: 4 });
      await store().append(7, EXPIRES, some);
      expect(await scanAll(store(), 7)).toEqual([...everyone]);
      expect(await taskIdsOf(store(), some[3]!)).toEqual([7]);
    });

    it("drops an acknowledged user's entry, whichever group holds it", async () => {
      await appendGrouped(7);
      const acked = [everyone[0]!, everyone[6]!, everyone[2997]!];
      for (const uin of acked) await store().acknowledge(uin, [7]);
      for (const uin of acked) expect(await store().pending(uin)).toEqual([]);
      expect(await scanAll(store(), 7)).toEqual([...everyone].filter((uin) => !acked.includes(uin)));
    });

    it("purges every group's records of an expired task", async () => {
      await appendGrouped(7, 4, 50);
      await store().append(9, EXPIRES + 10, u32(everyone[0]!));
      for (;;) if ((await store().purgeExpired(EXPIRES, 7)).done) break;
      expect(await scanAll(store(), 7)).toEqual([]);
      expect(await taskIdsOf(store(), everyone[0]!)).toEqual([9]);
      expect(await taskIdsOf(store(), everyone[1]!)).toEqual([]);
    });

    it('keeps a collapse scope whole across groups: a newer task of the scope supersedes every group', async () => {
      const scope = 'acme\u0000grouped';
      await store().append(10, EXPIRES, u32(1, 2, 3), { collapseScope: scope, group: 0 });
      await store().append(10, EXPIRES, u32(4, 5), { collapseScope: scope, group: 1 });
      await store().append(11, EXPIRES, u32(2, 5), { collapseScope: scope, group: 3 });
      expect(await scanAll(store(), 10)).toEqual([1, 3, 4]);
      expect(await taskIdsOf(store(), 5)).toEqual([11]);
    });

    it('rejects a group that is not an integer in [0, 65535]', async () => {
      for (const group of [-1, 1.5, 65_536, Number.NaN])
        await rejectsWithCode(store().append(1, EXPIRES, u32(1), { group }), 'VALIDATION_FAILED');
    });
  });
}
