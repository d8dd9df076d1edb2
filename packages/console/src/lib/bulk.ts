import type { TaskState } from '../api/types';
import { canCommand, type TaskCommand } from './commands';

/**
 * Bulk pause, resume and cancel on the task list: which commands a
 * selection allows, sending one request per task a few at a time, and the
 * summary said afterwards. Every task the server refused is named in the
 * summary with its reason: a bulk action never drops a failure silently.
 */

/** Requests in flight at once: enough to be quick, few enough not to crowd a small server or the browser. */
export const BULK_CONCURRENCY = 4;

/** How many of the selected tasks each command applies to, by their states as last seen. */
export function commandCounts(states: readonly TaskState[]): Record<TaskCommand, number> {
  const count = (command: TaskCommand) => states.filter((state) => canCommand(state, command)).length;
  return { pause: count('pause'), resume: count('resume'), cancel: count('cancel') };
}

/** What became of one task's request: done, or refused with the reason in the operator's words. */
export type BulkOutcome = { id: number; ok: true } | { id: number; ok: false; reason: string };

/**
 * Runs `work` on every item with at most `limit` running at once, and
 * answers the results in the items' order. `work` must not throw: it
 * answers each failure as a value, so one refusal never stops the rest.
 */
export async function runBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a whole number ≥ 1, got ${limit}`);
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/** An error answer's details, as the console's ApiError carries them. */
interface RefusalLike {
  message: string;
  code?: string;
  status?: number;
  details?: Record<string, unknown>;
}

/** Why the server refused a command for one task, in the operator's words. */
export function refusalReason(id: number, error: RefusalLike): string {
  const from = error.details?.from;
  if (error.code === 'ILLEGAL_TRANSITION' && typeof from === 'string') return `task ${id} is ${from}`;
  if (error.code === 'TASK_NOT_FOUND' || error.status === 404) return `task ${id} no longer exists`;
  return `task ${id}: ${error.message}`;
}

const DONE: Record<TaskCommand, string> = { pause: 'paused', resume: 'resumed', cancel: 'cancelled' };

/** "3 paused; 1 could not: task 12 is COMPLETED" (every refusal listed, none left out). */
export function summarize(command: TaskCommand, outcomes: readonly BulkOutcome[]): string {
  const done = outcomes.filter((o) => o.ok).length;
  const refused = outcomes.flatMap((o) => (o.ok ? [] : [o.reason]));
  const head = `${done} ${DONE[command]}`;
  return refused.length === 0 ? head : `${head}; ${refused.length} could not: ${refused.join(', ')}`;
}
