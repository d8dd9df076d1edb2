import type { Task } from '../api/types';

/**
 * The task list's search box. A whole number is a task id, looked up by the
 * server (GET /api/v1/tasks/:id, whatever page it is on). Other text is
 * matched against the titles and messages of the page the list shows: the
 * API has no text search, so the console says it searched one page.
 */
export type TaskSearch = { kind: 'none' } | { kind: 'id'; id: number } | { kind: 'text'; text: string };

export function parseTaskSearch(typed: string): TaskSearch {
  const text = typed.trim().replace(/^#/, '');
  if (text === '') return { kind: 'none' };
  if (/^\d{1,15}$/.test(text)) return { kind: 'id', id: Number(text) };
  return { kind: 'text', text: typed.trim() };
}

/** Case-insensitive: the text in the task's title or message. */
export function matchesText(task: Task, text: string): boolean {
  const needle = text.toLocaleLowerCase();
  return (
    (task.content.title ?? '').toLocaleLowerCase().includes(needle) ||
    task.content.body.toLocaleLowerCase().includes(needle)
  );
}
