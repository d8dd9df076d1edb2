/*
 * What GET /api/v1/tasks/:id/recipients/:uin and GET
 * /api/v1/recipients/:uin/history answer (docs/recipient-truth.md), mirrored
 * from core's RecipientFate: the console does not import core at run time.
 * test/fate-words.test.ts checks core's answers fit these types.
 */
import type { FilterReason, TaskState } from './types';

export type OfflineThen =
  | { outcome: 'waiting'; until: number }
  | { outcome: 'delivered_at_login'; at: number }
  | { outcome: 'expired'; at: number }
  | { outcome: 'dropped_at_login'; at: number; why: 'expired' | 'over_frequency' }
  | { outcome: 'unknown'; reason: string };

export type Fate =
  | { fate: 'not_in_audience' }
  | { fate: 'removed'; link: FilterReason }
  | { fate: 'delivered_online'; at: number; executor: string; atLogin: false }
  | { fate: 'rejected'; at: number; executor: string; reason: string }
  | { fate: 'queued_offline'; at: number; executor: string; then: OfflineThen }
  | { fate: 'not_reached'; taskState: TaskState; why: string }
  | { fate: 'unknown'; reason: string };

export type RecipientFate = Fate & {
  uin: number;
  position?: number;
  duplicateCopiesRemoved?: number;
  /** A local-time task's group of this recipient (docs/local-time.md). */
  localGroup?: { releaseAt: number; offsetMinutes: number; skipped: boolean };
  /** The A/B variant it was given (docs/rollouts.md). */
  variant?: string;
};

/** One recipient in one task. */
export type TaskRecipientFate = RecipientFate & { taskId: number };

/** One broadcast of a recipient's history. */
export type HistoryEntry = TaskRecipientFate & { title: string | null; createdAt: number; state: TaskState };

export interface RecipientHistory {
  uin: number;
  accountId: string;
  from: string;
  to: string;
  entries: HistoryEntry[];
  /** Tasks the page read (at most 200 a request). */
  scanned: number;
  nextCursor: string | null;
}
