import { ValidationError } from '@herald/core';

/** Items a page holds when the request names no limit, and at most (the task list's bounds). */
export const PAGE_DEFAULT_LIMIT = 100;
export const PAGE_MAX_LIMIT = 1000;

/** The querystring of a list paged by `<createdAt>-<id>` cursors. */
export const PAGE_QUERY_PROPERTIES = {
  cursor: { type: 'string', pattern: '^\\d{1,16}-.{1,255}$' },
  limit: { type: 'integer', minimum: 1, maximum: PAGE_MAX_LIMIT },
} as const;

interface Keyed {
  id: string;
  createdAt: number;
}

/** 0 when equal; by createdAt, then id (byte order, as the stores sort). */
function compareKeys(a: Keyed, b: Keyed): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * One page of a list already sorted by (createdAt, id), ascending or
 * descending, for routes whose store answers the whole list (tokens, this
 * process's audience jobs: tens to hundreds). The cursor is the key of the
 * last item of the previous page, `<createdAt>-<id>` (nextCursor; null on the
 * last page), so an item added or pruned between two requests neither
 * repeats nor shifts another out, as with the task list's id cursor.
 */
export function keysetPage<T extends Keyed>(
  sorted: readonly T[],
  order: 'asc' | 'desc',
  cursor: string | undefined,
  limit = PAGE_DEFAULT_LIMIT,
): { items: T[]; nextCursor: string | null } {
  let start = 0;
  if (cursor !== undefined) {
    const match = /^(\d{1,16})-(.+)$/s.exec(cursor);
    if (match === null)
      throw new ValidationError('cursor must be a nextCursor this list answered', { field: 'cursor' });
    const after: Keyed = { createdAt: Number(match[1]), id: match[2]! };
    const sign = order === 'asc' ? 1 : -1;
    while (start < sorted.length && sign * compareKeys(sorted[start]!, after) <= 0) start++;
  }
  const items = sorted.slice(start, start + limit);
  const last = items[items.length - 1];
  const more = start + limit < sorted.length;
  return { items, nextCursor: more && last !== undefined ? `${last.createdAt}-${last.id}` : null };
}
