import { isHeraldError } from '@herald/core';
import type { TaskStore } from '@herald/core/ports';
import { drive, newTask, NOW } from './fixtures';

/**
 * Idempotent creation: a NewTask's `idempotencyKey` makes a repeated (or
 * concurrent) createTask return the first task instead of another one. This
 * is what lets a campaign firing, or an API client, retry after a crash or a
 * lost reply without a second broadcast.
 */
export function describeIdempotency(store: () => TaskStore): void {
  describe('idempotent creation', () => {
    it('returns the stored task for a key already used, creating nothing and writing no event', async () => {
      const first = await store().createTask(newTask({ idempotencyKey: 'campaign:7:1700000000000' }), NOW);
      expect(first.idempotencyKey).toBe('campaign:7:1700000000000');
      const events = await store().readOutbox(0, 100);
      const again = await store().createTask(
        newTask({ idempotencyKey: 'campaign:7:1700000000000', listCount: 5 }),
        NOW + 10,
      );
      expect(again).toEqual(first);
      expect((await store().listTasks()).tasks).toEqual([first]);
      expect(await store().readOutbox(0, 100)).toEqual(events);
    });

    it('returns the task as it is now, not as it was created', async () => {
      const first = await store().createTask(newTask({ idempotencyKey: 'k' }), NOW);
      const claimed = await store().claimTask(first.id, 'scheduler-a', NOW + 1);
      const queued = await drive(store(), claimed, ['enqueue'], NOW + 2);
      expect(await store().createTask(newTask({ idempotencyKey: 'k' }), NOW + 3)).toEqual(queued);
    });

    it('creates one task per distinct key, and keys compare exactly', async () => {
      const keys = ['a', 'A', 'a ', 'campaign:1:1', 'campaign:1:2', 'ключ'];
      const tasks = await Promise.all(
        keys.map((idempotencyKey) => store().createTask(newTask({ idempotencyKey }), NOW)),
      );
      expect(new Set(tasks.map((t) => t.id)).size).toBe(keys.length);
      for (const [i, key] of keys.entries())
        expect((await store().getTaskByIdempotencyKey(key))?.id).toBe(tasks[i]!.id);
      expect(await store().getTaskByIdempotencyKey('b')).toBeUndefined();
    });

    it('leaves tasks without a key alone: each create is a new task without the field', async () => {
      const a = await store().createTask(newTask(), NOW);
      const b = await store().createTask(newTask(), NOW);
      expect(a.id).not.toBe(b.id);
      expect('idempotencyKey' in a).toBe(false);
      expect('idempotencyKey' in (await store().getTask(a.id))!).toBe(false);
    });

    it('concurrent creates with one key make exactly one task, and every caller gets it', async () => {
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          store().createTask(newTask({ idempotencyKey: 'race', listCount: i }), NOW + i),
        ),
      );
      const ids = new Set(results.map((t) => t.id));
      expect(ids.size).toBe(1);
      expect((await store().listTasks()).tasks).toHaveLength(1);
      expect((await store().readOutbox(0, 100)).filter((e) => e.from === null)).toHaveLength(1);
    });

    it('keeps the key on every read path', async () => {
      const task = await store().createTask(newTask({ idempotencyKey: 'kept' }), NOW);
      expect((await store().getTask(task.id))?.idempotencyKey).toBe('kept');
      expect((await store().listLiveTasks())[0]?.idempotencyKey).toBe('kept');
      const claimed = await store().claimTask(task.id, 's', NOW);
      expect(claimed.idempotencyKey).toBe('kept');
    });

    it.each([
      ['empty', ''],
      ['not a string', 7],
      ['longer than 255 characters', 'k'.repeat(256)],
    ])('refuses a key that is %s with VALIDATION_FAILED naming idempotencyKey', async (_what, key) => {
      const error = await store()
        .createTask(newTask({ idempotencyKey: key as string }), NOW)
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(isHeraldError(error) && error.code).toBe('VALIDATION_FAILED');
      expect(isHeraldError(error) && error.details.field).toBe('idempotencyKey');
      expect((await store().listTasks()).tasks).toEqual([]);
    });

    it('takes a key of exactly 255 characters, counted as characters', async () => {
      const key = '鍵'.repeat(255);
      const task = await store().createTask(newTask({ idempotencyKey: key }), NOW);
      expect((await store().getTaskByIdempotencyKey(key))?.id).toBe(task.id);
    });
  });
}
