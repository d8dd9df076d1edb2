import type { OutboxEvent, TaskStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { drive, fenceOf, newTask, NOW, settle, TO_SENDING } from './fixtures';

/** Everything in the outbox not yet relayed, oldest first. */
async function readAll(store: TaskStore): Promise<OutboxEvent[]> {
  const events: OutboxEvent[] = [];
  for (let afterId = 0; ;) {
    const page = await store.readOutbox(afterId, 1000);
    events.push(...page);
    if (page.length < 1000) return events;
    afterId = page[page.length - 1]!.id;
  }
}

/** The events without their ids (which an adapter chooses), after checking the ids ascend. */
function withoutIds(events: readonly OutboxEvent[]): Omit<OutboxEvent, 'id'>[] {
  for (const e of events) expect(Number.isSafeInteger(e.id) && e.id > 0).toBe(true);
  for (let i = 1; i < events.length; i++) expect(events[i]!.id).toBeGreaterThan(events[i - 1]!.id);
  return events.map(({ id: _id, ...rest }) => rest);
}

/**
 * The outbox: one event per task state change (creation included), written
 * atomically with the change; read in id order, hidden once marked relayed.
 */
export function describeOutbox(store: () => TaskStore): void {
  describe('outbox', () => {
    it('is empty on an empty store', async () => {
      expect(await store().readOutbox(0, 10)).toEqual([]);
    });

    it('writes one event at creation (from null) and one per state change, in order, with the new version and `now`', async () => {
      const task = await store().createTask(newTask(), NOW);
      const claimed = await store().claimTask(task.id, 'scheduler-a', NOW + 1); // version 2, no state change
      const queued = await store().transitionTask(task.id, fenceOf(claimed), 'enqueue', {}, NOW + 2); // 3
      await store().updateTask(task.id, fenceOf(claimed), { report: { kept: 5 } }, NOW + 3); // 4, no state change
      await store().transitionTask(task.id, fenceOf(queued), 'admit', {}, NOW + 4); // 5
      await store().transitionTask(task.id, fenceOf(queued), 'preprocessed', { filteredListId: 'f' }, NOW + 5); // 6
      await store().transitionTask(task.id, fenceOf(queued), 'cancel', {}, NOW + 6); // 7
      expect(withoutIds(await readAll(store()))).toEqual([
        { taskId: task.id, from: null, to: 'CREATED', version: 1, at: NOW },
        { taskId: task.id, from: 'CREATED', to: 'QUEUED', version: 3, at: NOW + 2 },
        { taskId: task.id, from: 'QUEUED', to: 'PREPROCESSING', version: 5, at: NOW + 4 },
        { taskId: task.id, from: 'PREPROCESSING', to: 'DISPATCHING', version: 6, at: NOW + 5 },
        { taskId: task.id, from: 'DISPATCHING', to: 'CANCELLED', version: 7, at: NOW + 6 },
      ]);
    });

    it('writes no event for claims and patches that leave the state as it is', async () => {
      const task = await store().createTask(newTask(), NOW);
      const before = await readAll(store());
      const claimed = await store().claimTask(task.id, 'scheduler-a', NOW);
      await store().updateTask(task.id, fenceOf(claimed), { filteredListId: 'f', report: { kept: 1 } }, NOW);
      await store().claimTask(task.id, 'scheduler-b', NOW);
      expect(await readAll(store())).toEqual(before);
    });

    it('writes no event for a refused transition: illegal, fenced, or of an unknown task', async () => {
      const task = await store().createTask(newTask(), NOW);
      const a = await store().claimTask(task.id, 'scheduler-a', NOW);
      const sending = await drive(store(), a, TO_SENDING);
      await store().claimTask(task.id, 'scheduler-b', NOW);
      const before = await readAll(store());
      expect(before).toHaveLength(1 + TO_SENDING.length);
      await rejectsWithCode(store().transitionTask(task.id, { epoch: 2 }, 'admit', {}, NOW + 1), 'ILLEGAL_TRANSITION');
      await rejectsWithCode(store().transitionTask(task.id, fenceOf(sending), 'complete', {}, NOW + 1), 'FENCED');
      await rejectsWithCode(store().transitionTask(424_242, { epoch: 0 }, 'enqueue', {}, NOW + 1), 'TASK_NOT_FOUND');
      expect(await readAll(store())).toEqual(before);
    });

    it('orders the events of several tasks as the changes happened', async () => {
      const a = await store().createTask(newTask(), NOW);
      const b = await store().createTask(newTask(), NOW + 1);
      await drive(store(), b, ['enqueue'], NOW + 2);
      await drive(store(), a, ['schedule'], NOW + 3);
      await drive(store(), b, ['pause'], NOW + 4);
      expect(withoutIds(await readAll(store())).map((e) => [e.taskId, e.from, e.to, e.at])).toEqual([
        [a.id, null, 'CREATED', NOW],
        [b.id, null, 'CREATED', NOW + 1],
        [b.id, 'CREATED', 'QUEUED', NOW + 2],
        [a.id, 'CREATED', 'SCHEDULED', NOW + 3],
        [b.id, 'QUEUED', 'PAUSED', NOW + 4],
      ]);
    });

    it('pages by afterId and limit', async () => {
      for (let i = 0; i < 7; i++) await store().createTask(newTask(), NOW + i);
      const all = await store().readOutbox(0, 100);
      expect(all.map((e) => e.at)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => NOW + i));
      const p1 = await store().readOutbox(0, 3);
      expect(p1).toEqual(all.slice(0, 3));
      const p2 = await store().readOutbox(p1[2]!.id, 3);
      expect(p2).toEqual(all.slice(3, 6));
      const p3 = await store().readOutbox(p2[2]!.id, 3);
      expect(p3).toEqual(all.slice(6));
      expect(await store().readOutbox(all[6]!.id, 3)).toEqual([]);
      expect(await store().readOutbox(all[1]!.id, 1)).toEqual([all[2]]);
    });

    it('markRelayed hides the events with id <= upToId; later events still appear', async () => {
      for (let i = 0; i < 5; i++) await store().createTask(newTask(), NOW + i);
      const all = await store().readOutbox(0, 100);
      await store().markRelayed(0);
      expect(await store().readOutbox(0, 100)).toEqual(all);
      await store().markRelayed(all[2]!.id);
      expect(await store().readOutbox(0, 100)).toEqual(all.slice(3));
      await store().markRelayed(all[2]!.id);
      await store().markRelayed(all[1]!.id);
      expect(await store().readOutbox(0, 100)).toEqual(all.slice(3));
      const task = await store().createTask(newTask(), NOW + 10);
      await drive(store(), task, ['enqueue'], NOW + 11);
      const rest = await store().readOutbox(0, 100);
      expect(rest.slice(0, 2)).toEqual(all.slice(3));
      expect(withoutIds(rest.slice(2))).toEqual([
        { taskId: task.id, from: null, to: 'CREATED', version: 1, at: NOW + 10 },
        { taskId: task.id, from: 'CREATED', to: 'QUEUED', version: 2, at: NOW + 11 },
      ]);
      expect(rest[2]!.id).toBeGreaterThan(all[4]!.id);
      await store().markRelayed(rest[rest.length - 1]!.id);
      expect(await store().readOutbox(0, 100)).toEqual([]);
    });

    it('never hands out an event id again once its event was relayed', async () => {
      const first = await store().createTask(newTask(), NOW);
      const [created] = await store().readOutbox(0, 1);
      await store().markRelayed(created!.id);
      await drive(store(), first, ['enqueue'], NOW + 1);
      const [next] = await store().readOutbox(0, 1);
      expect(next!.id).toBeGreaterThan(created!.id);
    });

    it('accepts limit 1..1000 and afterId >= 0; anything else fails VALIDATION_FAILED', async () => {
      await store().createTask(newTask(), NOW);
      await store().createTask(newTask(), NOW);
      expect(await store().readOutbox(0, 1)).toHaveLength(1);
      expect(await store().readOutbox(0, 1000)).toHaveLength(2);
      for (const limit of [0, -1, 1001, 2.5, Number.NaN])
        await rejectsWithCode(store().readOutbox(0, limit), 'VALIDATION_FAILED');
      for (const afterId of [-1, 1.5, Number.NaN])
        await rejectsWithCode(store().readOutbox(afterId, 10), 'VALIDATION_FAILED');
      for (const upToId of [-1, 1.5, Number.NaN])
        await rejectsWithCode(store().markRelayed(upToId), 'VALIDATION_FAILED');
      expect(await store().readOutbox(0, 10)).toHaveLength(2);
    });

    it('concurrent changes of different tasks: one event each, distinct ids', async () => {
      const tasks = await Promise.all(Array.from({ length: 10 }, (_, i) => store().createTask(newTask(), NOW + i)));
      await Promise.all(tasks.map((t) => store().transitionTask(t.id, fenceOf(t), 'enqueue', {}, NOW + 100)));
      const events = await readAll(store());
      expect(new Set(events.map((e) => e.id)).size).toBe(20);
      withoutIds(events);
      const enqueued = events.filter((e) => e.to === 'QUEUED');
      expect(enqueued.map((e) => e.taskId).sort((x, y) => x - y)).toEqual(tasks.map((t) => t.id).sort((x, y) => x - y));
      for (const e of enqueued) expect(e).toMatchObject({ from: 'CREATED', version: 2, at: NOW + 100 });
    });

    it('racing transitions of one task: only the winner writes an event', async () => {
      const task = await store().createTask(newTask(), NOW);
      const { ok } = await settle([
        // From CREATED each is legal; after any one of them, neither of the others is.
        store().transitionTask(task.id, fenceOf(task), 'enqueue', {}, NOW + 1),
        store().transitionTask(task.id, fenceOf(task), 'enqueue', {}, NOW + 2),
        store().transitionTask(task.id, fenceOf(task), 'fail', {}, NOW + 3),
      ]);
      expect(ok).toHaveLength(1);
      const events = withoutIds(await readAll(store()));
      expect(events).toEqual([
        { taskId: task.id, from: null, to: 'CREATED', version: 1, at: NOW },
        { taskId: task.id, from: 'CREATED', to: ok[0]!.state, version: 2, at: ok[0]!.updatedAt },
      ]);
    });
  });
}
