import type { Task } from '../src/api/types';
import { cloneOf, emptyForm } from '../src/lib/broadcast-form';
import { noMatchText, searchTerm } from '../src/lib/task-search';

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

describe('search term', () => {
  it('sends trimmed text as q, #42 as 42, nothing for blanks', () => {
    expect(searchTerm('  ')).toEqual({ q: undefined });
    expect(searchTerm(' Digest 42 ')).toEqual({ q: 'Digest 42' });
    expect(searchTerm(' #42 ')).toEqual({ q: '42' });
    expect(searchTerm('#news')).toEqual({ q: '#news' });
  });

  it('refuses more than 200 characters in words, counting characters not UTF-16 units', () => {
    expect(searchTerm('x'.repeat(200))).toEqual({ q: 'x'.repeat(200) });
    expect(searchTerm('😀'.repeat(200))).toEqual({ q: '😀'.repeat(200) });
    expect(searchTerm('x'.repeat(201))).toEqual({ error: 'A search is at most 200 characters.' });
  });

  it('says what was looked for, and that the next page looks further when the server stopped short', () => {
    expect(noMatchText('task', 'sale', false, false)).toBe('No task matches “sale”.');
    expect(noMatchText('campaign', 'sale', true, true)).toBe(
      'No campaign matches “sale” with these filters among those looked at so far; the next page looks further.',
    );
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
