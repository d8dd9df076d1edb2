import type { Task } from '@herald/core/task';
import type { TaskQuery, TaskStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { drive, newTask, NOW, TO_SENDING } from './fixtures';

/**
 * Every task a query finds, following nextCursor to the end. A search's
 * pages may be short (an adapter that scans stops at its budget), so only the
 * whole walk is compared; each page must still respect the limit.
 */
export async function searchAll(store: TaskStore, query: TaskQuery): Promise<number[]> {
  const ids: number[] = [];
  const limit = query.limit ?? 100;
  let cursor: number | undefined;
  for (let pages = 0; ; pages++) {
    if (pages > 10_000) throw new Error('listTasks kept answering a cursor');
    const at = cursor === undefined ? {} : query.order === 'desc' ? { beforeId: cursor } : { afterId: cursor };
    const page = await store.listTasks({ ...query, ...at });
    expect(page.tasks.length).toBeLessThanOrEqual(limit);
    ids.push(...page.tasks.map((t) => t.id));
    if (page.nextCursor === null) return ids;
    cursor = page.nextCursor;
  }
}

const idsOf = (tasks: readonly Task[]): number[] => tasks.map((t) => t.id);

/** listTasks' text search (TaskQuery.q): title and body, ignoring case; digits also match the id. */
export function describeTaskSearch(store: () => TaskStore): void {
  describe('listTasks search (q)', () => {
    it('finds a case-insensitive substring of the title or the body, in both orders', async () => {
      const s = store();
      const title = await s.createTask(newTask({ content: { title: 'Spring SALE', body: 'x' } }), NOW);
      const body = await s.createTask(newTask({ content: { body: 'the sale ends friday' } }), NOW);
      const neither = await s.createTask(newTask({ content: { title: 'News', body: 'Good morning' } }), NOW);
      expect(await searchAll(s, { q: 'Sale' })).toEqual([title.id, body.id]);
      expect(await searchAll(s, { q: 'sALE', order: 'desc' })).toEqual([body.id, title.id]);
      expect(await searchAll(s, { q: 'good MORNING' })).toEqual([neither.id]);
      expect(await searchAll(s, { q: 'nowhere' })).toEqual([]);
    });

    it('finds text outside ASCII and text that looks like JSON', async () => {
      const s = store();
      const accented = await s.createTask(newTask({ content: { body: 'Œuvre «complète» — Ünïcode' } }), NOW);
      const quoted = await s.createTask(newTask({ content: { body: 'say "hi" {x}' } }), NOW);
      expect(await searchAll(s, { q: 'ünïcode' })).toEqual([accented.id]);
      expect(await searchAll(s, { q: '«complète»' })).toEqual([accented.id]);
      expect(await searchAll(s, { q: '"hi" {' })).toEqual([quoted.id]);
    });

    it('matches a term of digits against the id exactly as well as the text', async () => {
      const s = store();
      const first = await s.createTask(newTask({ content: { body: 'plain' } }), NOW);
      const mentions = await s.createTask(newTask({ content: { body: `see task ${first.id}` } }), NOW);
      await s.createTask(newTask({ content: { body: 'plain' } }), NOW);
      expect(await searchAll(s, { q: String(first.id) })).toEqual([first.id, mentions.id]);
      expect(await searchAll(s, { q: String(first.id + 1_000_000) })).toEqual([]);
    });

    it('takes %, _ and \\ literally', async () => {
      const s = store();
      const percent = await s.createTask(newTask({ content: { body: '50% off' } }), NOW);
      const under = await s.createTask(newTask({ content: { body: 'snake_case' } }), NOW);
      const slash = await s.createTask(newTask({ content: { body: 'C:\\path' } }), NOW);
      await s.createTask(newTask({ content: { body: '50 off, snakeXcase, C:path' } }), NOW);
      expect(await searchAll(s, { q: '%' })).toEqual([percent.id]);
      expect(await searchAll(s, { q: '0% o' })).toEqual([percent.id]);
      expect(await searchAll(s, { q: 'e_c' })).toEqual([under.id]);
      expect(await searchAll(s, { q: '\\' })).toEqual([slash.id]);
      expect(await searchAll(s, { q: ':\\p' })).toEqual([slash.id]);
    });

    it('combines with the account, state and time filters and pages with the cursor', async () => {
      const s = store();
      const wanted: number[] = [];
      for (let i = 0; i < 9; i++) {
        const task = await s.createTask(
          newTask({ accountId: i % 3 === 0 ? 'other' : 'acct-1', content: { body: i % 2 === 0 ? 'Promo' : 'news' } }),
          NOW + i,
        );
        if (i % 3 !== 0 && i % 2 === 0) wanted.push(task.id);
      }
      expect(await searchAll(s, { q: 'promo', accountId: 'acct-1', limit: 1 })).toEqual(wanted);
      expect(await searchAll(s, { q: 'promo', accountIds: ['acct-1'], order: 'desc', limit: 1 })).toEqual(
        [...wanted].reverse(),
      );
      expect(await searchAll(s, { q: 'promo', accountId: 'acct-1', createdFrom: NOW + 3 })).toEqual(wanted.slice(1));
      const sending = await drive(s, (await s.getTask(wanted[0]!))!, TO_SENDING);
      expect(idsOf((await s.listTasks({ q: 'PROMO', state: 'SENDING' })).tasks)).toEqual([sending.id]);
    });

    it('refuses an empty term or one over 200 characters, naming q', async () => {
      const s = store();
      await s.createTask(newTask(), NOW);
      expect(await searchAll(s, { q: 'g'.repeat(1) })).toHaveLength(1);
      expect(await searchAll(s, { q: 'x'.repeat(200) })).toEqual([]);
      for (const q of ['', 'x'.repeat(201), 42 as unknown as string]) {
        const error = await rejectsWithCode(s.listTasks({ q }), 'VALIDATION_FAILED');
        expect(error.details).toMatchObject({ field: 'q' });
      }
    });
  });
}
