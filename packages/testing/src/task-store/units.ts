import type { TaskStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { fenceOf, newTask, NOW, sendingTaskWithUnits, units } from './fixtures';

/** putUnits, listUnits, transitionUnit and the idempotent checkpointUnit. */
export function describeUnits(store: () => TaskStore): void {
  describe('putUnits and listUnits', () => {
    it('creates units in PENDING with checkpoint = start and nothing delivered', async () => {
      const task = await store().createTask(newTask(), NOW);
      const input = units(3, 100, 500);
      const created = await store().putUnits(task.id, fenceOf(task), input, NOW + 7);
      const expected = input.map((u) => ({
        ...u,
        taskId: task.id,
        state: 'PENDING',
        checkpoint: u.start,
        delivered: 0,
        offline: 0,
        updatedAt: NOW + 7,
      }));
      expect([...created].sort((a, b) => a.unitNo - b.unitNo)).toEqual(expected);
      expect(await store().listUnits(task.id)).toEqual(expected);
    });

    it('lists units in unitNo order, and nothing for a task without units', async () => {
      const task = await store().createTask(newTask(), NOW);
      expect(await store().listUnits(task.id)).toEqual([]);
      const input = units(12, 10);
      await store().putUnits(task.id, fenceOf(task), [...input].reverse(), NOW);
      expect((await store().listUnits(task.id)).map((u) => u.unitNo)).toEqual(input.map((u) => u.unitNo));
      const other = await store().createTask(newTask(), NOW);
      expect(await store().listUnits(other.id)).toEqual([]);
    });

    it('creates units once: a second putUnits fails VALIDATION_FAILED and changes nothing', async () => {
      const task = await store().createTask(newTask(), NOW);
      await store().putUnits(task.id, fenceOf(task), units(2), NOW);
      const before = await store().listUnits(task.id);
      await rejectsWithCode(store().putUnits(task.id, fenceOf(task), units(3, 7), NOW + 1), 'VALIDATION_FAILED');
      expect(await store().listUnits(task.id)).toEqual(before);
    });

    it('rejects duplicate unit numbers with VALIDATION_FAILED and creates nothing', async () => {
      const task = await store().createTask(newTask(), NOW);
      const [u0, u1] = units(2);
      await rejectsWithCode(
        store().putUnits(task.id, fenceOf(task), [u0!, { ...u1!, unitNo: 0 }], NOW),
        'VALIDATION_FAILED',
      );
      expect(await store().listUnits(task.id)).toEqual([]);
    });

    it('fails with TASK_NOT_FOUND for an unknown task', async () => {
      await rejectsWithCode(store().putUnits(424_242, { epoch: 0 }, units(1), NOW), 'TASK_NOT_FOUND');
    });
  });

  describe('transitionUnit', () => {
    it('moves a unit through the unit machine, setting executorId when given', async () => {
      const { task, fence } = await sendingTaskWithUnits(store());
      const assigned = await store().transitionUnit(task.id, 1, fence, 'assign', NOW + 1, 'executor-9');
      expect(assigned).toMatchObject({ unitNo: 1, state: 'ASSIGNED', executorId: 'executor-9', updatedAt: NOW + 1 });
      const running = await store().transitionUnit(task.id, 1, fence, 'start', NOW + 2);
      expect(running).toMatchObject({ state: 'RUNNING', executorId: 'executor-9', updatedAt: NOW + 2 });
      const lost = await store().transitionUnit(task.id, 1, fence, 'lose', NOW + 3);
      const reassigned = await store().transitionUnit(task.id, 1, fence, 'assign', NOW + 4);
      expect(lost.state).toBe('REASSIGNED');
      expect(reassigned).toMatchObject({ state: 'ASSIGNED', executorId: 'executor-9' });
      const [u0, u1] = await store().listUnits(task.id);
      expect(u1).toEqual(reassigned);
      expect(u0!.state).toBe('PENDING');
    });

    it('refuses an event the unit state does not accept with ILLEGAL_TRANSITION and changes nothing', async () => {
      const { task, fence } = await sendingTaskWithUnits(store());
      const before = await store().listUnits(task.id);
      await rejectsWithCode(store().transitionUnit(task.id, 0, fence, 'finish', NOW + 1), 'ILLEGAL_TRANSITION');
      await rejectsWithCode(
        store().transitionUnit(task.id, 0, fence, 'retry', NOW + 1, 'executor-9'),
        'ILLEGAL_TRANSITION',
      );
      expect(await store().listUnits(task.id)).toEqual(before);
    });

    it('fails NOT_FOUND for an unknown unit and TASK_NOT_FOUND for an unknown task', async () => {
      const { task, fence } = await sendingTaskWithUnits(store());
      await rejectsWithCode(store().transitionUnit(task.id, 99, fence, 'assign', NOW), 'NOT_FOUND');
      await rejectsWithCode(store().transitionUnit(424_242, 0, fence, 'assign', NOW), 'TASK_NOT_FOUND');
    });
  });

  describe('checkpointUnit', () => {
    async function runningUnit() {
      const { task, fence } = await sendingTaskWithUnits(store(), 2, 100);
      await store().transitionUnit(task.id, 1, fence, 'assign', NOW);
      const unit = await store().transitionUnit(task.id, 1, fence, 'start', NOW);
      expect(unit).toMatchObject({ start: 100, end: 200, checkpoint: 100 });
      return { taskId: task.id, fence, unit };
    }

    it('advances the checkpoint when from equals it, adding delivered and offline', async () => {
      const { taskId, fence } = await runningUnit();
      const a = await store().checkpointUnit(
        taskId,
        1,
        fence,
        { from: 100, to: 150, delivered: 40, offline: 10 },
        NOW + 1,
      );
      expect(a).toMatchObject({ checkpoint: 150, delivered: 40, offline: 10, state: 'RUNNING', updatedAt: NOW + 1 });
      const b = await store().checkpointUnit(
        taskId,
        1,
        fence,
        { from: 150, to: 200, delivered: 45, offline: 5 },
        NOW + 2,
      );
      expect(b).toMatchObject({ checkpoint: 200, delivered: 85, offline: 15, updatedAt: NOW + 2 });
      expect((await store().listUnits(taskId))[1]).toEqual(b);
    });

    it('ignores a replay (same from) and out-of-order progress, returning the unit unchanged', async () => {
      const { taskId, fence } = await runningUnit();
      const a = await store().checkpointUnit(
        taskId,
        1,
        fence,
        { from: 100, to: 150, delivered: 40, offline: 10 },
        NOW + 1,
      );
      const replay = await store().checkpointUnit(
        taskId,
        1,
        fence,
        { from: 100, to: 150, delivered: 40, offline: 10 },
        NOW + 2,
      );
      expect(replay).toEqual(a);
      const behind = await store().checkpointUnit(
        taskId,
        1,
        fence,
        { from: 120, to: 160, delivered: 40, offline: 0 },
        NOW + 3,
      );
      expect(behind).toEqual(a);
      const ahead = await store().checkpointUnit(
        taskId,
        1,
        fence,
        { from: 170, to: 180, delivered: 10, offline: 0 },
        NOW + 4,
      );
      expect(ahead).toEqual(a);
      expect((await store().listUnits(taskId))[1]).toEqual(a);
    });

    it('requires from < to <= end, else VALIDATION_FAILED and nothing changed', async () => {
      const { taskId, fence, unit } = await runningUnit();
      await rejectsWithCode(
        store().checkpointUnit(taskId, 1, fence, { from: 100, to: 100, delivered: 0, offline: 0 }, NOW),
        'VALIDATION_FAILED',
      );
      await rejectsWithCode(
        store().checkpointUnit(taskId, 1, fence, { from: 100, to: 90, delivered: 0, offline: 0 }, NOW),
        'VALIDATION_FAILED',
      );
      await rejectsWithCode(
        store().checkpointUnit(taskId, 1, fence, { from: 100, to: 201, delivered: 101, offline: 0 }, NOW),
        'VALIDATION_FAILED',
      );
      expect((await store().listUnits(taskId))[1]).toEqual(unit);
    });

    it('fails NOT_FOUND for an unknown unit and TASK_NOT_FOUND for an unknown task', async () => {
      const { taskId, fence } = await runningUnit();
      await rejectsWithCode(
        store().checkpointUnit(taskId, 7, fence, { from: 0, to: 1, delivered: 1, offline: 0 }, NOW),
        'NOT_FOUND',
      );
      await rejectsWithCode(
        store().checkpointUnit(424_242, 0, fence, { from: 0, to: 1, delivered: 1, offline: 0 }, NOW),
        'TASK_NOT_FOUND',
      );
    });
  });
}
