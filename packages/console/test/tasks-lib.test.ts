import type { Task } from '../src/api/types';
import { cloneOf, emptyForm } from '../src/lib/broadcast-form';
import { matchesText, parseTaskSearch } from '../src/lib/task-search';

/** The task list's search box and a task's clone, without a browser (clone.test.ts drives both in one). */
const task = (over: Partial<Task>): Task =>
  ({
    id: 7,
    accountId: 'acme_news',
    listId: 'l_7',
    state: 'COMPLETED',
    content: { title: 'Weekly Digest', body: 'Read the news' },
    priority: 'normal',
    sendAt: 1_000_000,
    expiresAt: 1_000_000 + 5_400_000,
    listCount: 40,
    ...over,
  }) as Task;

describe('task search', () => {
  it('reads a whole number (or #number) as an id, other text as words to match', () => {
    expect(parseTaskSearch('  ')).toEqual({ kind: 'none' });
    expect(parseTaskSearch('42')).toEqual({ kind: 'id', id: 42 });
    expect(parseTaskSearch(' #42 ')).toEqual({ kind: 'id', id: 42 });
    expect(parseTaskSearch('digest 42')).toEqual({ kind: 'text', text: 'digest 42' });
  });

  it('matches the title or the message, in any case', () => {
    expect(matchesText(task({}), 'DIGEST')).toBe(true);
    expect(matchesText(task({}), 'the news')).toBe(true);
    expect(matchesText(task({ content: { body: 'x' } }), 'digest')).toBe(false);
  });
});

describe('cloneOf', () => {
  it("copies the task's account, list, content, priority, duration and speed, to send now", () => {
    expect(
      cloneOf(task({ priority: 'realtime', speed: 250, content: { title: 'T', body: 'B {{uin}}', template: true } })),
    ).toEqual({
      ...emptyForm('acme_news'),
      listId: 'l_7',
      title: 'T',
      body: 'B {{uin}}',
      personalised: true,
      priority: 'realtime',
      durationHours: '1.5',
      speed: '250',
    });
  });

  it('leaves out what the task does not have: no title, no speed', () => {
    const form = cloneOf(task({ content: { body: 'B' }, speed: null }));
    expect(form).toMatchObject({ title: '', speed: '', personalised: false, when: 'now', displayAt: '' });
  });
});
