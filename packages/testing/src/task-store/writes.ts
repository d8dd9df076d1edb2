import { FencedError, IllegalTransitionError, NotFoundError } from '@herald/core';
import type { Task } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { drive, fenceOf, newTask, NOW, TO_SENDING, units } from './fixtures';

/** claimTask, transitionTask, updateTask and fencing of every owner write. */
export function describeTaskWrites(store: () => TaskStore): void {
  describe('claimTask', () => {
    it('raises the epoch, sets the owner and bumps the version, whatever the previous owner', async () => {
      const task = await store().createTask(newTask(), NOW);
      const a = await store().claimTask(task.id, 'scheduler-a', NOW + 1);
      expect(a).toMatchObject({
        epoch: 1,
        owner: 'scheduler-a',
        version: 2,
        updatedAt: NOW + 1,
        createdAt: NOW,
        state: 'CREATED',
      });
      const b = await store().claimTask(task.id, 'scheduler-b', NOW + 2);
      expect(b).toMatchObject({ epoch: 2, owner: 'scheduler-b', version: 3, updatedAt: NOW + 2 });
      const again = await store().claimTask(task.id, 'scheduler-b', NOW + 3);
      expect(again).toMatchObject({ epoch: 3, owner: 'scheduler-b', version: 4 });
      expect(await store().getTask(task.id)).toEqual(again);
    });

    it('fails with TASK_NOT_FOUND for an unknown id', async () => {
      const error = await rejectsWithCode(store().claimTask(424_242, 'scheduler-a', NOW), 'TASK_NOT_FOUND');
      expect(error).toBeInstanceOf(NotFoundError);
    });
  });

  describe('transitionTask', () => {
    it('applies a legal event: new state, version + 1, updatedAt = now, nothing else changed', async () => {
      const task = await store().createTask(newTask(), NOW);
      const queued = await store().transitionTask(task.id, fenceOf(task), 'enqueue', {}, NOW + 5);
      expect(queued).toEqual({ ...task, state: 'QUEUED', version: 2, updatedAt: NOW + 5 });
      expect(await store().getTask(task.id)).toEqual(queued);
    });

    it('walks a whole lifecycle through the task machine', async () => {
      const task = await store().createTask(newTask(), NOW);
      const done = await drive(store(), task, [
        'schedule',
        'enqueue',
        ...TO_SENDING.slice(1),
        'preempt',
        'resumeSending',
        'complete',
      ]);
      expect(done.state).toBe('COMPLETED');
      expect(done.version).toBe(1 + 8);
    });

    it('merges the patch: filteredListId, error, and a partial report whose removed counts merge per reason', async () => {
      const task = await store().createTask(newTask({ listCount: 1000 }), NOW);
      const pre = await drive(store(), task, ['enqueue', 'admit']);
      const dispatching = await store().transitionTask(
        task.id,
        fenceOf(pre),
        'preprocessed',
        { filteredListId: 'filtered-1', report: { kept: 900, removed: { duplicate: 60, blacklisted: 40 }, units: 3 } },
        NOW,
      );
      expect(dispatching.state).toBe('DISPATCHING');
      expect(dispatching.filteredListId).toBe('filtered-1');
      expect(dispatching.report).toEqual({
        total: 1000,
        kept: 900,
        removed: { duplicate: 60, blacklisted: 40 },
        delivered: 0,
        offline: 0,
        units: 3,
        unitsDone: 0,
      });
      const sending = await store().transitionTask(
        task.id,
        fenceOf(pre),
        'dispatched',
        { report: { removed: { over_frequency: 5 }, delivered: 10 } },
        NOW,
      );
      expect(sending.filteredListId).toBe('filtered-1');
      expect(sending.report.removed).toEqual({ duplicate: 60, blacklisted: 40, over_frequency: 5 });
      expect(sending.report).toMatchObject({ kept: 900, delivered: 10, units: 3 });
      const replaced = await store().updateTask(
        task.id,
        fenceOf(pre),
        { report: { removed: { duplicate: 70 }, delivered: 20, offline: 7 } },
        NOW,
      );
      expect(replaced.report.removed).toEqual({ duplicate: 70, blacklisted: 40, over_frequency: 5 });
      expect(replaced.report).toMatchObject({ delivered: 20, offline: 7 });
      const failed = await store().transitionTask(
        task.id,
        fenceOf(pre),
        'fail',
        { error: { code: 'LIST_TRUNCATED', message: 'list ended early' } },
        NOW,
      );
      expect(failed.error).toEqual({ code: 'LIST_TRUNCATED', message: 'list ended early' });
      expect(await store().getTask(task.id)).toEqual(failed);
    });

    it('refuses an event the state does not accept with ILLEGAL_TRANSITION and changes nothing', async () => {
      const task = await store().createTask(newTask(), NOW);
      const error = await rejectsWithCode(
        store().transitionTask(
          task.id,
          fenceOf(task),
          'complete',
          { filteredListId: 'x', report: { kept: 1 } },
          NOW + 1,
        ),
        'ILLEGAL_TRANSITION',
      );
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect(await store().getTask(task.id)).toEqual(task);
      const cancelled = await drive(store(), task, ['cancel']);
      await rejectsWithCode(
        store().transitionTask(task.id, fenceOf(task), 'enqueue', {}, NOW + 2),
        'ILLEGAL_TRANSITION',
      );
      expect(await store().getTask(task.id)).toEqual(cancelled);
    });

    it('fails with TASK_NOT_FOUND for an unknown id', async () => {
      await rejectsWithCode(store().transitionTask(424_242, { epoch: 0 }, 'enqueue', {}, NOW), 'TASK_NOT_FOUND');
    });
  });

  describe('updateTask', () => {
    it("keeps the channel's part of the report: dead letters replaced whole, the hold set and cleared with null", async () => {
      const task = await store().createTask(newTask(), NOW);
      const held = await store().updateTask(
        task.id,
        fenceOf(task),
        { report: { delivered: 3, deadLetters: { unregistered: 2 }, channel: { state: 'throttled', reason: '429' } } },
        NOW,
      );
      expect(await store().getTask(task.id)).toEqual(held);
      expect(held.report).toMatchObject({
        delivered: 3,
        deadLetters: { unregistered: 2 },
        channel: { state: 'throttled' },
      });
      const sending = await store().updateTask(
        task.id,
        fenceOf(held),
        { report: { deadLetters: { unregistered: 2, bad_device_token: 1 }, channel: null } },
        NOW,
      );
      expect((await store().getTask(task.id))!.report).toMatchObject({
        delivered: 3,
        deadLetters: { unregistered: 2, bad_device_token: 1 },
        channel: null,
      });
      const bad = [
        { deadLetters: { 'Not A Token': 1 } },
        { deadLetters: { gone: -1 } },
        { channel: { state: 'paused', reason: '' } },
      ] as never[];
      for (const report of bad)
        await rejectsWithCode(store().updateTask(task.id, fenceOf(sending), { report }, NOW), 'VALIDATION_FAILED');
    });

    it('patches without changing state, version + 1; clears error and filteredListId with null', async () => {
      const task = await store().createTask(newTask(), NOW);
      const patched = await store().updateTask(
        task.id,
        fenceOf(task),
        { filteredListId: 'f', error: { code: 'E', message: 'm' } },
        NOW + 1,
      );
      expect(patched).toEqual({
        ...task,
        filteredListId: 'f',
        error: { code: 'E', message: 'm' },
        version: 2,
        updatedAt: NOW + 1,
      });
      const cleared = await store().updateTask(task.id, fenceOf(task), { filteredListId: null, error: null }, NOW + 2);
      expect(cleared).toEqual({ ...task, version: 3, updatedAt: NOW + 2 });
      const empty = await store().updateTask(task.id, fenceOf(task), {}, NOW + 3);
      expect(empty).toEqual({ ...task, version: 4, updatedAt: NOW + 3 });
    });

    it('fails with TASK_NOT_FOUND for an unknown id', async () => {
      await rejectsWithCode(store().updateTask(424_242, { epoch: 0 }, {}, NOW), 'TASK_NOT_FOUND');
    });

    it('raises the version by exactly one on every write', async () => {
      const task = await store().createTask(newTask(), NOW);
      const versions = [task.version];
      let t: Task = await store().claimTask(task.id, 'a', NOW);
      versions.push(t.version);
      t = await store().transitionTask(t.id, fenceOf(t), 'enqueue', {}, NOW);
      versions.push(t.version);
      t = await store().updateTask(t.id, fenceOf(t), { report: { kept: 1 } }, NOW);
      versions.push(t.version);
      t = await store().claimTask(t.id, 'b', NOW);
      versions.push(t.version);
      expect(versions).toEqual([1, 2, 3, 4, 5]);
    });
  });

  describe('fencing', () => {
    /** A task owned by A (epoch 1) with running units, then claimed by B (epoch 2). */
    async function takenOver(withUnits = true) {
      const created = await store().createTask(newTask(), NOW);
      const a = await store().claimTask(created.id, 'scheduler-a', NOW);
      const sending = await drive(store(), a, TO_SENDING);
      if (withUnits) {
        await store().putUnits(a.id, fenceOf(a), units(2), NOW);
        await store().transitionUnit(a.id, 0, fenceOf(a), 'assign', NOW);
        await store().transitionUnit(a.id, 0, fenceOf(a), 'start', NOW);
      }
      const b = await store().claimTask(created.id, 'scheduler-b', NOW);
      expect(b.epoch).toBe(sending.epoch + 1);
      const stale = fenceOf(a);
      const before = { task: await store().getTask(a.id), units: await store().listUnits(a.id) };
      const unchanged = async () => {
        expect(await store().getTask(a.id)).toEqual(before.task);
        expect(await store().listUnits(a.id)).toEqual(before.units);
      };
      return { id: a.id, stale, current: fenceOf(b), unchanged };
    }

    async function expectFenced(promise: Promise<unknown>, stale: number, stored: number) {
      const error = await rejectsWithCode(promise, 'FENCED');
      expect(error).toBeInstanceOf(FencedError);
      expect(error.retriable).toBe(false);
      expect(error.details).toMatchObject({ heldEpoch: stale, storedEpoch: stored });
    }

    it('transitionTask with an old epoch fails FENCED and changes nothing', async () => {
      const { id, stale, unchanged } = await takenOver();
      await expectFenced(store().transitionTask(id, stale, 'complete', { report: { delivered: 1 } }, NOW + 1), 1, 2);
      await unchanged();
    });

    it('updateTask with an old epoch fails FENCED and changes nothing', async () => {
      const { id, stale, unchanged } = await takenOver();
      await expectFenced(
        store().updateTask(id, stale, { report: { delivered: 1 }, filteredListId: 'x' }, NOW + 1),
        1,
        2,
      );
      await unchanged();
    });

    it('putUnits with an old epoch fails FENCED and creates nothing', async () => {
      const { id, stale, unchanged } = await takenOver(false);
      await expectFenced(store().putUnits(id, stale, units(3), NOW + 1), 1, 2);
      await unchanged();
      expect(await store().listUnits(id)).toEqual([]);
    });

    it('transitionUnit with an old epoch fails FENCED and changes nothing', async () => {
      const { id, stale, unchanged } = await takenOver();
      await expectFenced(store().transitionUnit(id, 0, stale, 'finish', NOW + 1), 1, 2);
      await expectFenced(store().transitionUnit(id, 1, stale, 'assign', NOW + 1, 'executor-9'), 1, 2);
      await unchanged();
    });

    it('checkpointUnit with an old epoch fails FENCED and changes nothing', async () => {
      const { id, stale, unchanged } = await takenOver();
      await expectFenced(
        store().checkpointUnit(id, 0, stale, { from: 0, to: 50, delivered: 40, offline: 10 }, NOW + 1),
        1,
        2,
      );
      await unchanged();
    });

    it('the new owner writes with its own epoch; an epoch of 0 is stale once claimed', async () => {
      const { id, current } = await takenOver();
      await expectFenced(store().updateTask(id, { epoch: 0 }, {}, NOW), 0, 2);
      const unit = await store().checkpointUnit(
        id,
        0,
        current,
        { from: 0, to: 50, delivered: 40, offline: 10 },
        NOW + 1,
      );
      expect(unit.checkpoint).toBe(50);
      const done = await store().transitionTask(id, current, 'complete', {}, NOW + 1);
      expect(done).toMatchObject({ state: 'COMPLETED', owner: 'scheduler-b', epoch: 2 });
    });
  });
}
