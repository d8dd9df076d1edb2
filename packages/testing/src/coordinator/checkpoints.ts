import { seededRandom } from '@herald/core';
import type { Coordinator, StoredCheckpoint, UnitCheckpoint } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';

const AT = 1_700_000_000_000;

/** A checkpoint with totals derived from its offset, so a mixed-up record shows. */
export function cp(taskId: number, unitNo: number, epoch: number, checkpoint: number): UnitCheckpoint {
  return {
    taskId,
    unitNo,
    epoch,
    checkpoint,
    delivered: checkpoint - (checkpoint >> 2),
    offline: checkpoint >> 2,
    at: AT + epoch * 1000 + checkpoint,
  };
}

/** The record without its adapter version, for comparisons. */
function plain(stored: StoredCheckpoint | undefined): UnitCheckpoint | undefined {
  if (stored === undefined) return undefined;
  const { version, ...rest } = stored;
  expect(Number.isInteger(version)).toBe(true);
  return rest;
}

const keyOf = (c: { taskId: number; unitNo: number }): string => `${c.taskId}/${c.unitNo}`;

export function describeCheckpoints(connect: () => Promise<Coordinator>): void {
  describe('checkpoints', () => {
    it('has nothing before the first put', async () => {
      const c = await connect();
      expect(await c.getCheckpoint(1, 0)).toBeUndefined();
      expect(await c.listCheckpoints()).toEqual([]);
      expect(await c.listCheckpoints(1)).toEqual([]);
    });

    it('reads back what was put, with every field and a version', async () => {
      const c = await connect();
      await c.putCheckpoint(cp(7, 3, 2, 4096));
      const stored = await c.getCheckpoint(7, 3);
      expect(plain(stored)).toEqual(cp(7, 3, 2, 4096));
      expect(await c.getCheckpoint(7, 2)).toBeUndefined();
      expect(await c.getCheckpoint(3, 7)).toBeUndefined();
    });

    it("lists all checkpoints, or one task's, ordered by task id then unit number (numerically)", async () => {
      const c = await connect();
      const all = [
        cp(20, 0, 1, 5),
        cp(3, 10, 1, 6),
        cp(3, 2, 1, 7),
        cp(2 ** 40, 1, 1, 8),
        cp(3, 0, 1, 9),
        cp(100, 11, 1, 10),
      ];
      for (const checkpoint of all) await c.putCheckpoint(checkpoint);
      const byOrder = [
        cp(3, 0, 1, 9),
        cp(3, 2, 1, 7),
        cp(3, 10, 1, 6),
        cp(20, 0, 1, 5),
        cp(100, 11, 1, 10),
        cp(2 ** 40, 1, 1, 8),
      ];
      expect((await c.listCheckpoints()).map(plain)).toEqual(byOrder);
      expect((await c.listCheckpoints(3)).map(plain)).toEqual(byOrder.slice(0, 3));
      expect((await c.listCheckpoints(2 ** 40)).map(plain)).toEqual([cp(2 ** 40, 1, 1, 8)]);
      expect(await c.listCheckpoints(4)).toEqual([]);
      const listed = await c.listCheckpoints();
      for (const stored of listed)
        expect((await c.getCheckpoint(stored.taskId, stored.unitNo))?.version).toBe(stored.version);
    });

    it('is shared by every participant of the cluster', async () => {
      const [a, b] = [await connect(), await connect()];
      await a.putCheckpoint(cp(1, 0, 1, 100));
      await b.putCheckpoint(cp(1, 1, 1, 200));
      expect(plain(await b.getCheckpoint(1, 0))).toEqual(cp(1, 0, 1, 100));
      expect((await a.listCheckpoints(1)).map(plain)).toEqual([cp(1, 0, 1, 100), cp(1, 1, 1, 200)]);
    });

    it('is monotonic within an epoch: an equal or lower offset is ignored, a higher one replaces', async () => {
      const c = await connect();
      await c.putCheckpoint(cp(1, 0, 5, 1000));
      const first = await c.getCheckpoint(1, 0);
      await c.putCheckpoint(cp(1, 0, 5, 999));
      await c.putCheckpoint({ ...cp(1, 0, 5, 1000), delivered: 1, offline: 1, at: AT + 1 });
      await c.putCheckpoint(cp(1, 0, 5, 0));
      expect(await c.getCheckpoint(1, 0)).toEqual(first);
      await c.putCheckpoint(cp(1, 0, 5, 1001));
      const second = await c.getCheckpoint(1, 0);
      expect(plain(second)).toEqual(cp(1, 0, 5, 1001));
      expect(second?.version).not.toBe(first?.version);
    });

    it('lets a higher epoch replace even with a lower offset (a new owner may restart lower)', async () => {
      const c = await connect();
      await c.putCheckpoint(cp(1, 0, 5, 1000));
      await c.putCheckpoint(cp(1, 0, 6, 10));
      expect(plain(await c.getCheckpoint(1, 0))).toEqual(cp(1, 0, 6, 10));
      await c.putCheckpoint(cp(1, 0, 6, 5));
      expect(plain(await c.getCheckpoint(1, 0))).toEqual(cp(1, 0, 6, 10));
    });

    it('never lets a lower epoch (a stale owner) replace, whatever its offset', async () => {
      const c = await connect();
      await c.putCheckpoint(cp(1, 0, 6, 10));
      await c.putCheckpoint(cp(1, 0, 5, 10_000));
      expect(plain(await c.getCheckpoint(1, 0))).toEqual(cp(1, 0, 6, 10));
    });

    it('keeps the highest (epoch, offset) when participants put concurrently', async () => {
      const participants = [await connect(), await connect(), await connect()];
      const next = seededRandom(11);
      const writes: UnitCheckpoint[] = [];
      for (let i = 0; i < 60; i++) writes.push(cp(9, i % 2, 1 + Math.floor(next() * 3), Math.floor(next() * 10_000)));
      await Promise.all(writes.map((w, i) => participants[i % participants.length]!.putCheckpoint(w)));
      for (const unitNo of [0, 1]) {
        const best = writes
          .filter((w) => w.unitNo === unitNo)
          .reduce((a, b) => (b.epoch > a.epoch || (b.epoch === a.epoch && b.checkpoint > a.checkpoint) ? b : a));
        expect(plain(await participants[0]!.getCheckpoint(9, unitNo))).toEqual(best);
      }
    });

    it('removes a checkpoint at its current version', async () => {
      const c = await connect();
      await c.putCheckpoint(cp(4, 0, 1, 50));
      await c.putCheckpoint(cp(4, 1, 1, 60));
      const read = await c.getCheckpoint(4, 0);
      expect(await c.removeCheckpoint(4, 0, read!.version)).toBe(true);
      expect(await c.getCheckpoint(4, 0)).toBeUndefined();
      expect((await c.listCheckpoints()).map(keyOf)).toEqual(['4/1']);
      expect(await c.removeCheckpoint(4, 0, read!.version)).toBe(false);
    });

    it('keeps a checkpoint written after the read: remove at the old version returns false', async () => {
      const [controller, scheduler] = [await connect(), await connect()];
      await scheduler.putCheckpoint(cp(4, 0, 1, 50));
      const read = await controller.getCheckpoint(4, 0);
      await scheduler.putCheckpoint(cp(4, 0, 1, 80));
      expect(await controller.removeCheckpoint(4, 0, read!.version)).toBe(false);
      const kept = await controller.getCheckpoint(4, 0);
      expect(plain(kept)).toEqual(cp(4, 0, 1, 80));
      expect(await controller.removeCheckpoint(4, 0, kept!.version)).toBe(true);
      expect(await scheduler.listCheckpoints(4)).toEqual([]);
    });

    it('does not count an ignored put as a write: remove at the read version still succeeds', async () => {
      const c = await connect();
      await c.putCheckpoint(cp(4, 0, 2, 50));
      const read = await c.getCheckpoint(4, 0);
      await c.putCheckpoint(cp(4, 0, 2, 40));
      await c.putCheckpoint(cp(4, 0, 1, 90));
      expect(await c.removeCheckpoint(4, 0, read!.version)).toBe(true);
    });

    it('returns false for a checkpoint that does not exist, and accepts a new put after a remove', async () => {
      const c = await connect();
      expect(await c.removeCheckpoint(5, 0, 0)).toBe(false);
      await c.putCheckpoint(cp(5, 0, 3, 70));
      expect(await c.removeCheckpoint(5, 0, (await c.getCheckpoint(5, 0))!.version)).toBe(true);
      await c.putCheckpoint(cp(5, 0, 1, 10));
      expect(plain(await c.getCheckpoint(5, 0))).toEqual(cp(5, 0, 1, 10));
      expect((await c.listCheckpoints(5)).map(plain)).toEqual([cp(5, 0, 1, 10)]);
    });

    it('rejects task ids, unit numbers and offsets that are not non-negative integers with VALIDATION_FAILED', async () => {
      const c = await connect();
      const bad: UnitCheckpoint[] = [
        { ...cp(1, 0, 1, 1), taskId: -1 },
        { ...cp(1, 0, 1, 1), taskId: 1.5 },
        { ...cp(1, 0, 1, 1), unitNo: -1 },
        { ...cp(1, 0, 1, 1), epoch: Number.NaN },
        { ...cp(1, 0, 1, 1), checkpoint: -5 },
      ];
      for (const checkpoint of bad) await rejectsWithCode(c.putCheckpoint(checkpoint), 'VALIDATION_FAILED');
      await rejectsWithCode(c.getCheckpoint(-1, 0), 'VALIDATION_FAILED');
      await rejectsWithCode(c.listCheckpoints(0.5), 'VALIDATION_FAILED');
      await rejectsWithCode(c.removeCheckpoint(1, -2, 0), 'VALIDATION_FAILED');
      expect(await c.listCheckpoints()).toEqual([]);
    });
  });
}
