import { ValidationError } from '@herald/core';
import { classifyFate, type RecipientFate } from '@herald/core/fate';
import type { TaskStore } from '@herald/core/ports';
import { TERMINAL_TASK_STATES, type Task, type TaskState } from '@herald/core/task';
import { recipientFate, type RecipientFateDeps } from './recipient-fate';

/**
 * Tasks one history request reads at most, whatever it finds: a fixed
 * constant, not a setting. Each costs a few positioned reads of the task's
 * files (recipientFate), so a request of an account with thousands of tasks
 * in the window, the user in none of them, stays well under a second; the
 * answer then carries a cursor to go on from (docs/recipient-truth.md,
 * "A recipient's history").
 */
export const HISTORY_SCAN_BUDGET = 200;
/** Entries a page holds by default, and at most. */
export const HISTORY_DEFAULT_LIMIT = 20;
export const HISTORY_MAX_LIMIT = 100;
/** The window when `from` is not given: the last 30 days before `to`. */
export const HISTORY_DEFAULT_DAYS = 30;

/** One broadcast of the user's history: the task, and the user's fate in it. */
export type HistoryEntry = {
  taskId: number;
  title: string | null;
  createdAt: number;
  state: TaskState;
} & RecipientFate;

export interface HistoryQuery {
  uin: number;
  accountId: string;
  /** Tasks created in [from, to), epoch ms. */
  from: number;
  to: number;
  /** Only tasks with a smaller id (the cursor's task id). */
  beforeId: number | undefined;
  limit: number;
}

export interface HistoryPage {
  entries: HistoryEntry[];
  /** Tasks read for this page (at most HISTORY_SCAN_BUDGET). */
  scanned: number;
  /** The id of the last task read; undefined when none is left in the window. */
  lastScannedId: number | undefined;
}

/**
 * The user's broadcasts from the account, newest first: every task created
 * in the window, the user's fate in it, tasks where it was not in the
 * audience left out. Stops at `limit` entries or HISTORY_SCAN_BUDGET tasks
 * read, whichever comes first, and says where it stopped.
 */
export async function recipientHistory(
  query: HistoryQuery,
  deps: RecipientFateDeps & { store: Pick<TaskStore, 'listTasks'> },
): Promise<HistoryPage> {
  const entries: HistoryEntry[] = [];
  let scanned = 0;
  let beforeId = query.beforeId;
  while (scanned < HISTORY_SCAN_BUDGET && entries.length < query.limit) {
    const page = await deps.store.listTasks({
      accountId: query.accountId,
      order: 'desc',
      beforeId,
      createdFrom: query.from,
      createdBefore: query.to,
      limit: HISTORY_SCAN_BUDGET - scanned,
    });
    for (const [index, task] of page.tasks.entries()) {
      scanned++;
      beforeId = task.id;
      const fate = await fateIn(task, query.uin, deps);
      if (fate.fate !== 'not_in_audience') entries.push(entryOf(task, fate));
      const stopped = entries.length >= query.limit || scanned >= HISTORY_SCAN_BUDGET;
      if (stopped) {
        const more = index < page.tasks.length - 1 || page.nextCursor !== null;
        return { entries, scanned, lastScannedId: more ? task.id : undefined };
      }
    }
    if (page.nextCursor === null) break;
  }
  return { entries, scanned, lastScannedId: undefined };
}

/**
 * The user's fate in a task. A task whose list is not filtered yet is in
 * everyone's history, its fate unknown: whether the user is in its audience
 * is not known yet, and leaving it out would say it is not.
 */
async function fateIn(task: Task, uin: number, deps: RecipientFateDeps): Promise<RecipientFate> {
  if (task.filteredListId === null && !TERMINAL_TASK_STATES.includes(task.state)) {
    return classifyFate({
      uin,
      taskState: task.state,
      expiresAt: task.expiresAt,
      now: deps.clock.now(),
      filtered: false,
      position: undefined,
      removal: { recorded: false },
      delivery: { kind: 'none' },
      login: { kind: 'none' },
    });
  }
  return recipientFate(task, uin, deps);
}

function entryOf(task: Task, fate: RecipientFate): HistoryEntry {
  return { taskId: task.id, title: task.content.title ?? null, createdAt: task.createdAt, state: task.state, ...fate };
}

/** `<uin>-<taskId>`: go on below that task. A cursor of another uin is refused naming `cursor`. */
export function parseHistoryCursor(raw: string | undefined, uin: number): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^(0|[1-9][0-9]{0,15})-([1-9][0-9]{0,15})$/.exec(raw);
  const bad = (why: string) => new ValidationError(`cursor '${raw.slice(0, 64)}' ${why}`, { field: 'cursor' });
  if (match === null) throw bad('is not <uin>-<taskId>');
  if (Number(match[1]) !== uin) throw bad(`is of uin ${match[1]}, not uin ${uin}`);
  const taskId = Number(match[2]);
  if (!Number.isSafeInteger(taskId)) throw bad('names a task id that is not a safe integer');
  return taskId;
}

export const historyCursor = (uin: number, taskId: number): string => `${uin}-${taskId}`;
