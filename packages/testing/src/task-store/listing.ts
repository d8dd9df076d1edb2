import type { Task } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { drive, newTask, NOW } from './fixtures';

/** listTasks: the keyset-paged listing with its filters (state, accounts, creation window, order). */
export function describeTaskListing(store: () => TaskStore): void {
  describe('listTasks', () => {
    it('lists every task in ascending id order, nextCursor null when it all fits', async () => {
      const created = [];
      for (let i = 0; i < 4; i++) created.push(await store().createTask(newTask(), NOW + i));
      const page = await store().listTasks();
      expect(page.tasks).toEqual(created);
      expect(page.nextCursor).toBeNull();
    });

    it('pages by afterId/limit: nextCursor is the last id of a page and null on the last page', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 7; i++) ids.push((await store().createTask(newTask(), NOW)).id);
      const p1 = await store().listTasks({ limit: 3 });
      expect(p1.tasks.map((t) => t.id)).toEqual(ids.slice(0, 3));
      expect(p1.nextCursor).toBe(ids[2]);
      const p2 = await store().listTasks({ limit: 3, afterId: p1.nextCursor! });
      expect(p2.tasks.map((t) => t.id)).toEqual(ids.slice(3, 6));
      expect(p2.nextCursor).toBe(ids[5]);
      const p3 = await store().listTasks({ limit: 3, afterId: p2.nextCursor! });
      expect(p3.tasks.map((t) => t.id)).toEqual(ids.slice(6));
      expect(p3.nextCursor).toBeNull();
    });

    it('a page that ends exactly at the last task has nextCursor null', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 4; i++) ids.push((await store().createTask(newTask(), NOW)).id);
      const p1 = await store().listTasks({ limit: 2 });
      const p2 = await store().listTasks({ limit: 2, afterId: p1.nextCursor! });
      expect(p2.tasks.map((t) => t.id)).toEqual(ids.slice(2));
      expect(p2.nextCursor).toBeNull();
      expect(await store().listTasks({ afterId: ids[3]! })).toEqual({ tasks: [], nextCursor: null });
    });

    it("lists newest first with order 'desc', paged by beforeId", async () => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await store().createTask(newTask(), NOW + i)).id);
      const newest = [...ids].reverse();
      const p1 = await store().listTasks({ order: 'desc', limit: 2 });
      expect(p1.tasks.map((t) => t.id)).toEqual(newest.slice(0, 2));
      expect(p1.nextCursor).toBe(newest[1]);
      const p2 = await store().listTasks({ order: 'desc', limit: 2, beforeId: p1.nextCursor! });
      expect(p2.tasks.map((t) => t.id)).toEqual(newest.slice(2, 4));
      const p3 = await store().listTasks({ order: 'desc', limit: 2, beforeId: p2.nextCursor! });
      expect(p3).toEqual({ tasks: [await store().getTask(ids[0]!)], nextCursor: null });
      expect(await store().listTasks({ order: 'desc', beforeId: ids[0]! })).toEqual({ tasks: [], nextCursor: null });
      expect((await store().listTasks({ order: 'asc' })).tasks.map((t) => t.id)).toEqual(ids);
    });

    it('filters by creation time (createdFrom inclusive, createdBefore exclusive) in both orders and with other filters', async () => {
      const made = [];
      for (let i = 0; i < 6; i++)
        made.push(await store().createTask(newTask({ accountId: i % 2 === 0 ? 'acct-a' : 'acct-b' }), NOW + i * 1000));
      const window = { createdFrom: NOW + 1000, createdBefore: NOW + 4000 };
      expect((await store().listTasks(window)).tasks.map((t) => t.id)).toEqual([made[1]!.id, made[2]!.id, made[3]!.id]);
      expect((await store().listTasks({ ...window, order: 'desc' })).tasks.map((t) => t.id)).toEqual([
        made[3]!.id,
        made[2]!.id,
        made[1]!.id,
      ]);
      expect((await store().listTasks({ ...window, accountId: 'acct-a' })).tasks.map((t) => t.id)).toEqual([
        made[2]!.id,
      ]);
      const paged = await store().listTasks({ ...window, order: 'desc', limit: 2 });
      expect(paged.tasks.map((t) => t.id)).toEqual([made[3]!.id, made[2]!.id]);
      expect(
        (await store().listTasks({ ...window, order: 'desc', limit: 2, beforeId: paged.nextCursor! })).tasks.map(
          (t) => t.id,
        ),
      ).toEqual([made[1]!.id]);
      expect((await store().listTasks({ createdFrom: NOW + 5000 })).tasks.map((t) => t.id)).toEqual([made[5]!.id]);
      expect((await store().listTasks({ createdBefore: NOW })).tasks).toEqual([]);
    });

    it('rejects a bad order, a cursor of the other order and bad times with VALIDATION_FAILED', async () => {
      await store().createTask(newTask(), NOW);
      const bad: Parameters<TaskStore['listTasks']>[0][] = [
        { order: 'sideways' as 'asc' },
        { beforeId: 5 },
        { order: 'desc', afterId: 3 },
        { order: 'desc', beforeId: 0 },
        { order: 'desc', beforeId: 1.5 },
        { createdFrom: -1 },
        { createdBefore: Number.NaN },
      ];
      for (const query of bad) await rejectsWithCode(store().listTasks(query), 'VALIDATION_FAILED');
    });

    it('defaults to 100 tasks per page', async () => {
      const ids: number[] = [];
      for (let i = 0; i < 101; i++) ids.push((await store().createTask(newTask(), NOW)).id);
      const page = await store().listTasks({});
      expect(page.tasks).toHaveLength(100);
      expect(page.nextCursor).toBe(ids[99]);
    });

    it('accepts limit 1..1000 and rejects anything else with VALIDATION_FAILED', async () => {
      await store().createTask(newTask(), NOW);
      expect((await store().listTasks({ limit: 1 })).tasks).toHaveLength(1);
      expect((await store().listTasks({ limit: 1000 })).tasks).toHaveLength(1);
      for (const limit of [0, -1, 1001, 2.5, Number.NaN]) {
        await rejectsWithCode(store().listTasks({ limit }), 'VALIDATION_FAILED');
      }
    });

    it('filters by state and by accountId, alone and together, across pages', async () => {
      const made = [];
      for (let i = 0; i < 10; i++)
        made.push(await store().createTask(newTask({ accountId: i % 2 === 0 ? 'acct-a' : 'acct-b' }), NOW));
      const queued = new Set<number>();
      for (const i of [0, 3, 4, 7, 8]) {
        await drive(store(), made[i]!, ['enqueue']);
        queued.add(made[i]!.id);
      }
      const all = async (query: { state?: 'CREATED' | 'QUEUED'; accountId?: string }): Promise<number[]> => {
        const ids: number[] = [];
        let afterId: number | undefined;
        for (;;) {
          const page = await store().listTasks({ ...query, limit: 2, ...(afterId === undefined ? {} : { afterId }) });
          for (const t of page.tasks) {
            if (query.state !== undefined) expect(t.state).toBe(query.state);
            if (query.accountId !== undefined) expect(t.accountId).toBe(query.accountId);
          }
          ids.push(...page.tasks.map((t) => t.id));
          if (page.nextCursor === null) return ids;
          expect(page.tasks).toHaveLength(2);
          expect(page.nextCursor).toBe(page.tasks[1]!.id);
          afterId = page.nextCursor;
        }
      };
      const ids = made.map((t) => t.id);
      expect(await all({ state: 'QUEUED' })).toEqual(ids.filter((id) => queued.has(id)));
      expect(await all({ state: 'CREATED' })).toEqual(ids.filter((id) => !queued.has(id)));
      expect(await all({ accountId: 'acct-a' })).toEqual(ids.filter((_, i) => i % 2 === 0));
      expect(await all({ accountId: 'acct-b', state: 'QUEUED' })).toEqual([made[3]!.id, made[7]!.id]);
      expect(await all({ accountId: 'acct-none' })).toEqual([]);
    });

    it("filters by a set of accounts (an operator token's), with state and accountId, across pages", async () => {
      const accounts = ['acct-a', 'acct-b', 'acct-c'];
      const made: Task[] = [];
      for (let i = 0; i < 9; i++) made.push(await store().createTask(newTask({ accountId: accounts[i % 3]! }), NOW));
      for (const i of [1, 2, 4]) await drive(store(), made[i]!, ['enqueue']);
      const all = async (query: { state?: 'QUEUED'; accountId?: string; accountIds: string[] }): Promise<number[]> => {
        const ids: number[] = [];
        let afterId: number | undefined;
        for (;;) {
          const page = await store().listTasks({ ...query, limit: 2, ...(afterId === undefined ? {} : { afterId }) });
          for (const t of page.tasks) expect(query.accountIds).toContain(t.accountId);
          ids.push(...page.tasks.map((t) => t.id));
          if (page.nextCursor === null) return ids;
          afterId = page.nextCursor;
        }
      };
      const of = (...indexes: number[]) => indexes.map((i) => made[i]!.id);
      expect(await all({ accountIds: ['acct-a', 'acct-c'] })).toEqual(of(0, 2, 3, 5, 6, 8));
      expect(await all({ accountIds: ['acct-c', 'acct-c'] })).toEqual(of(2, 5, 8));
      expect(await all({ accountIds: ['acct-a', 'acct-c'], state: 'QUEUED' })).toEqual(of(2));
      expect(await all({ accountIds: ['acct-a', 'acct-b'], accountId: 'acct-b' })).toEqual(of(1, 4, 7));
      expect(await all({ accountIds: ['acct-a'], accountId: 'acct-b' })).toEqual([]);
      expect(await all({ accountIds: [] })).toEqual([]);
      expect(await all({ accountIds: ['acct-none'] })).toEqual([]);
      await rejectsWithCode(store().listTasks({ accountIds: 'acct-a' as unknown as string[] }), 'VALIDATION_FAILED');
      await rejectsWithCode(
        store().listTasks({ accountIds: Array.from({ length: 1001 }, (_, i) => `a${i}`) }),
        'VALIDATION_FAILED',
      );
    });
  });
}
