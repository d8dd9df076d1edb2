import { FILTER_REASONS } from '@herald/core/task';
import { isHeraldError } from '@herald/core';
import type { TaskStore } from '@herald/core/ports';
import { drive, fenceOf, newTask, NOW, sendingTaskWithUnits, settle } from './fixtures';

function codeOf(error: unknown): string | undefined {
  return isHeraldError(error) ? error.code : undefined;
}

/**
 * Concurrent callers on one task: every read-modify-write must be atomic, so
 * exactly the legal sequence wins and no update is lost.
 */
export function describeConcurrency(store: () => TaskStore): void {
  describe('concurrency', () => {
    it('two simultaneous enqueues from CREATED: one succeeds, the other fails ILLEGAL_TRANSITION', async () => {
      const task = await store().createTask(newTask(), NOW);
      const { ok, failed } = await settle([
        store().transitionTask(task.id, fenceOf(task), 'enqueue', {}, NOW + 1),
        store().transitionTask(task.id, fenceOf(task), 'enqueue', {}, NOW + 2),
      ]);
      expect(ok).toHaveLength(1);
      expect(failed.map(codeOf)).toEqual(['ILLEGAL_TRANSITION']);
      expect(await store().getTask(task.id)).toEqual(ok[0]);
      expect(ok[0]).toMatchObject({ state: 'QUEUED', version: 2 });
    });

    it('racing events from QUEUED: exactly one of admit and resumeSending wins', async () => {
      const task = await store().createTask(newTask(), NOW);
      const queued = await drive(store(), task, ['enqueue']);
      const { ok, failed } = await settle([
        store().transitionTask(task.id, fenceOf(queued), 'admit', {}, NOW),
        store().transitionTask(task.id, fenceOf(queued), 'resumeSending', {}, NOW),
      ]);
      expect(ok).toHaveLength(1);
      expect(failed.map(codeOf)).toEqual(['ILLEGAL_TRANSITION']);
      expect((await store().getTask(task.id))!.state).toBe(ok[0]!.state);
    });

    it('concurrent patches of one task lose no update', async () => {
      const task = await store().createTask(newTask(), NOW);
      const results = await Promise.all(
        FILTER_REASONS.map((reason, i) =>
          store().updateTask(task.id, fenceOf(task), { report: { removed: { [reason]: i + 1 } } }, NOW),
        ),
      );
      expect(results.map((t) => t.version).sort((a, b) => a - b)).toEqual(FILTER_REASONS.map((_, i) => i + 2));
      const final = await store().getTask(task.id);
      expect(final!.version).toBe(1 + FILTER_REASONS.length);
      expect(final!.report.removed).toEqual(Object.fromEntries(FILTER_REASONS.map((reason, i) => [reason, i + 1])));
    });

    it('concurrent claims hand out distinct epochs', async () => {
      const task = await store().createTask(newTask(), NOW);
      const claims = await Promise.all(
        Array.from({ length: 6 }, (_, i) => store().claimTask(task.id, `scheduler-${i}`, NOW)),
      );
      expect(claims.map((t) => t.epoch).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6]);
      const final = await store().getTask(task.id);
      expect(final).toMatchObject({ epoch: 6, version: 7 });
      expect(final!.owner).toBe(claims.find((t) => t.epoch === 6)!.owner);
    });

    it('a claim racing a write by the old owner: either the write lands first or it is fenced', async () => {
      const task = await store().createTask(newTask(), NOW);
      const a = await store().claimTask(task.id, 'scheduler-a', NOW);
      const [write, claim] = await Promise.allSettled([
        store().transitionTask(task.id, fenceOf(a), 'enqueue', {}, NOW),
        store().claimTask(task.id, 'scheduler-b', NOW),
      ]);
      expect(claim.status).toBe('fulfilled');
      const final = (await store().getTask(task.id))!;
      expect(final).toMatchObject({ epoch: 2, owner: 'scheduler-b' });
      if (write.status === 'fulfilled') {
        expect(final).toMatchObject({ state: 'QUEUED', version: 4 });
      } else {
        expect(codeOf(write.reason)).toBe('FENCED');
        expect(final).toMatchObject({ state: 'CREATED', version: 3 });
      }
    });

    it('concurrent creates get distinct ids', async () => {
      const tasks = await Promise.all(
        Array.from({ length: 25 }, (_, i) => store().createTask(newTask({ listCount: i }), NOW)),
      );
      expect(new Set(tasks.map((t) => t.id)).size).toBe(25);
      for (const t of tasks) expect(await store().getTask(t.id)).toEqual(t);
    });

    it('a replayed checkpoint racing the original counts once', async () => {
      const { task, fence } = await sendingTaskWithUnits(store());
      await store().transitionUnit(task.id, 0, fence, 'assign', NOW);
      await store().transitionUnit(task.id, 0, fence, 'start', NOW);
      const progress = { from: 0, to: 30, delivered: 20, offline: 10 };
      await Promise.all([1, 2, 3].map(() => store().checkpointUnit(task.id, 0, fence, progress, NOW)));
      const [unit] = await store().listUnits(task.id);
      expect(unit).toMatchObject({ checkpoint: 30, delivered: 20, offline: 10 });
    });

    it('concurrent unit transitions on one task do not overwrite each other', async () => {
      const { task, fence } = await sendingTaskWithUnits(store(), 8, 10);
      await Promise.all(
        Array.from({ length: 8 }, (_, unitNo) =>
          store().transitionUnit(task.id, unitNo, fence, 'assign', NOW, `executor-x${unitNo}`),
        ),
      );
      const list = await store().listUnits(task.id);
      expect(list.map((u) => [u.state, u.executorId])).toEqual(
        Array.from({ length: 8 }, (_, i) => ['ASSIGNED', `executor-x${i}`]),
      );
    });
  });
}
