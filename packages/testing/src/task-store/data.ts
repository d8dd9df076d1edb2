import type { ListMeta } from '@herald/core/task';
import type { TaskStore } from '@herald/core/ports';
import { drive, fenceOf, newTask, NOW } from './fixtures';

/** Strings an adapter must store verbatim: SQL metacharacters, LIKE wildcards, and unicode beyond the BMP. */
export const HOSTILE_STRINGS = {
  sql: "Robert'); DROP TABLE tasks; --",
  quotes: `100% _done_ \\ "double" 'single' \`tick\` ;`,
  unicode: 'héllo wörld · 你好 · مرحبا · 🚀👩‍👩‍👧 · e\u0301 · \u200b',
  control: 'line1\nline2\r\ttab \u0000 nul',
} as const;

/** List records, verbatim strings, and `now` stored as given. */
export function describeData(store: () => TaskStore): void {
  describe('putList and getList', () => {
    it('round-trips list metadata; unknown ids read as undefined', async () => {
      const meta: ListMeta = {
        id: 'list-42',
        accountId: 'acct-1',
        count: 1_000_000,
        checksum: 0xdeadbeef,
        sorted: true,
        unique: false,
        bytes: 4_000_032,
        createdAt: NOW,
      };
      await store().putList(meta);
      expect(await store().getList('list-42')).toEqual(meta);
      expect(await store().getList('list-43')).toBeUndefined();
      expect(await store().getList('list-4')).toBeUndefined();
    });

    it('stores hostile ids and account names verbatim', async () => {
      for (const [i, s] of Object.values(HOSTILE_STRINGS).entries()) {
        const meta: ListMeta = {
          id: s,
          accountId: s,
          count: i,
          checksum: i,
          sorted: false,
          unique: true,
          bytes: 32 + 4 * i,
          createdAt: NOW + i,
        };
        await store().putList(meta);
      }
      for (const [i, s] of Object.values(HOSTILE_STRINGS).entries()) {
        expect(await store().getList(s)).toEqual({
          id: s,
          accountId: s,
          count: i,
          checksum: i,
          sorted: false,
          unique: true,
          bytes: 32 + 4 * i,
          createdAt: NOW + i,
        });
      }
    });
  });

  describe('verbatim strings', () => {
    it('stores SQL-like and unicode strings in every text field exactly as given', async () => {
      const { sql, quotes, unicode, control } = HOSTILE_STRINGS;
      const task = await store().createTask(
        newTask({ accountId: sql, listId: quotes, content: { body: `${unicode}\n${control}`, title: quotes } }),
        NOW,
      );
      const claimed = await store().claimTask(task.id, unicode, NOW);
      const patched = await store().updateTask(
        task.id,
        fenceOf(claimed),
        { filteredListId: unicode, error: { code: sql, message: control } },
        NOW,
      );
      expect(patched).toMatchObject({
        accountId: sql,
        listId: quotes,
        content: { body: `${unicode}\n${control}`, title: quotes },
        owner: unicode,
        filteredListId: unicode,
        error: { code: sql, message: control },
      });
      expect(await store().getTask(task.id)).toEqual(patched);
      expect((await store().listTasks({ accountId: sql })).tasks).toEqual([patched]);
      expect(await store().listTasksByContent(sql, task.contentCrc)).toEqual([patched]);
    });

    it('matches accountId exactly: case, trailing spaces and LIKE wildcards are significant', async () => {
      const accounts = ['acme', 'ACME', 'acme ', 'ac%', 'ac_e', 'acm', 'acmee'];
      const ids = new Map<string, number>();
      for (const accountId of accounts) {
        const task = await store().createTask(newTask({ accountId, contentCrc: 5 }), NOW);
        await store().updateTask(task.id, fenceOf(task), { filteredListId: `f-${task.id}` }, NOW);
        ids.set(accountId, task.id);
      }
      for (const accountId of accounts) {
        expect((await store().listTasks({ accountId })).tasks.map((t) => t.id)).toEqual([ids.get(accountId)]);
        expect((await store().listTasksByContent(accountId, 5)).map((t) => t.id)).toEqual([ids.get(accountId)]);
      }
    });
  });

  describe('times', () => {
    it('stores `now` exactly as given, even when it goes backwards', async () => {
      const task = await store().createTask(newTask(), 5);
      expect(task).toMatchObject({ createdAt: 5, updatedAt: 5 });
      const claimed = await store().claimTask(task.id, 'a', 3);
      expect(claimed).toMatchObject({ createdAt: 5, updatedAt: 3 });
      const queued = await drive(store(), claimed, ['enqueue'], 9);
      expect(queued).toMatchObject({ createdAt: 5, updatedAt: 9 });
      const updated = await store().updateTask(task.id, fenceOf(queued), {}, 1);
      expect(updated).toMatchObject({ createdAt: 5, updatedAt: 1 });
      const [unit] = await store().putUnits(
        task.id,
        fenceOf(queued),
        [{ unitNo: 0, start: 0, end: 10, executorId: 'e' }],
        11,
      );
      expect(unit!.updatedAt).toBe(11);
      expect((await store().transitionUnit(task.id, 0, fenceOf(queued), 'assign', 7)).updatedAt).toBe(7);
      expect((await store().transitionUnit(task.id, 0, fenceOf(queued), 'start', 8)).updatedAt).toBe(8);
      expect(
        (await store().checkpointUnit(task.id, 0, fenceOf(queued), { from: 0, to: 5, delivered: 5, offline: 0 }, 2))
          .updatedAt,
      ).toBe(2);
      expect((await store().getTask(task.id))!.updatedAt).toBe(1);
    });
  });
}
