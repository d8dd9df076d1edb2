import type { TaskStore } from '@herald/core/ports';
import type { TaskProgressRecord } from '@herald/core/progress';
import { drive, fenceOf, newTask, NOW, TO_SENDING } from './fixtures';

function record(confirmed: number, updatedAt = NOW): TaskProgressRecord {
  return {
    history: {
      intervalMs: 1000,
      samples: [
        { at: NOW, confirmed: 0 },
        { at: NOW + 1000, confirmed },
      ],
    },
    waiting: null,
    updatedAt,
  };
}

/** The progress record: replaced whole by the owner, fenced, checked, kept apart from the task's version. */
export function describeProgress(store: () => TaskStore): void {
  describe('putProgress and getProgress', () => {
    it('reads undefined before any write, then the last record written', async () => {
      const task = await store().claimTask((await store().createTask(newTask(), NOW)).id, 's1', NOW);
      expect(await store().getProgress(task.id)).toBeUndefined();
      await store().putProgress(task.id, fenceOf(task), record(4096));
      await store().putProgress(task.id, fenceOf(task), record(8192, NOW + 5));
      expect(await store().getProgress(task.id)).toEqual(record(8192, NOW + 5));
    });

    it('keeps a waiting reason and clears it', async () => {
      const task = await store().claimTask((await store().createTask(newTask(), NOW)).id, 's1', NOW);
      const waiting = { reason: 'sender_slots' as const, slots: 4, inUse: 4, heldBy: [1, 2], ahead: 1, since: NOW };
      await store().putProgress(task.id, fenceOf(task), { ...record(0), waiting });
      expect((await store().getProgress(task.id))?.waiting).toEqual(waiting);
      await store().putProgress(task.id, fenceOf(task), record(0));
      expect((await store().getProgress(task.id))?.waiting).toBeNull();
    });

    it("refuses a previous owner's write (FENCED) and keeps the record", async () => {
      const created = await store().createTask(newTask(), NOW);
      const first = await store().claimTask(created.id, 's1', NOW);
      await store().putProgress(first.id, fenceOf(first), record(1));
      const second = await drive(store(), await store().claimTask(created.id, 's2', NOW), TO_SENDING);
      await expect(store().putProgress(first.id, fenceOf(first), record(99))).rejects.toMatchObject({
        code: 'FENCED',
      });
      await store().putProgress(second.id, fenceOf(second), record(2));
      expect((await store().getProgress(second.id))?.history.samples[1]?.confirmed).toBe(2);
    });

    it('does not change the task or its version', async () => {
      const task = await store().claimTask((await store().createTask(newTask(), NOW)).id, 's1', NOW);
      await store().putProgress(task.id, fenceOf(task), record(5));
      expect(await store().getTask(task.id)).toEqual(task);
    });

    it('refuses an unknown task (TASK_NOT_FOUND) and a bad record naming the field', async () => {
      await expect(store().putProgress(987654, { epoch: 1 }, record(1))).rejects.toMatchObject({
        code: 'TASK_NOT_FOUND',
      });
      const task = await store().claimTask((await store().createTask(newTask(), NOW)).id, 's1', NOW);
      const backwards = {
        ...record(1),
        history: {
          intervalMs: 1000,
          samples: [
            { at: NOW, confirmed: 5 },
            { at: NOW + 1, confirmed: 4 },
          ],
        },
      };
      await expect(store().putProgress(task.id, fenceOf(task), backwards)).rejects.toThrow(
        'progress.history.samples[1]',
      );
      await expect(
        store().putProgress(task.id, fenceOf(task), { ...record(1), extra: true } as TaskProgressRecord),
      ).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(await store().getProgress(task.id)).toBeUndefined();
      expect(await store().getProgress(-1)).toBeUndefined();
    });

    it('keeps a long curve: 512 points round-trip exactly', async () => {
      const task = await store().claimTask((await store().createTask(newTask(), NOW)).id, 's1', NOW);
      const samples = Array.from({ length: 512 }, (_, i) => ({ at: NOW + i * 64_000, confirmed: i * 4_194_304 }));
      const long: TaskProgressRecord = { history: { intervalMs: 64_000, samples }, waiting: null, updatedAt: NOW };
      await store().putProgress(task.id, fenceOf(task), long);
      expect(await store().getProgress(task.id)).toEqual(long);
    });
  });
}
