/**
 * GET /api/v1/tasks/:id/progress as the console reads it (docs/api.md): the curve the task's owning scheduler recorded, its current
 * rate and ETA, and why a queued task waits.
 */
import type { TaskState } from './types';

export interface ProgressSample {
  /** Epoch ms. */
  at: number;
  /** Delivered + offline by then. */
  confirmed: number;
}

export interface WaitingReason {
  reason: 'sender_slots';
  slots: number;
  inUse: number;
  heldBy: number[];
  ahead: number;
  since: number;
  /** e.g. "waiting for a sender slot: 4 of 4 in use by tasks 12, 15, …" */
  message: string;
}

export interface TaskProgress {
  taskId: number;
  state: TaskState;
  total: number | null;
  confirmed: number;
  /** false: no curve was kept (not sent yet, or a task from before curves were kept). */
  recorded: boolean;
  intervalMs: number;
  samples: ProgressSample[];
  ratePerSecond: number;
  etaAt: number | null;
  waiting: WaitingReason | null;
  /** While groups are held for their recipients' quiet hours (docs/local-time.md): e.g. "held for quiet hours until 06:00 UTC on 2026-06-02 for 20 recipients". */
  quietHold?: { until: number; recipients: number; message: string };
  /** A local-time task's groups in release order (docs/local-time.md); absent for one instant or before planning. */
  localGroups?: LocalGroupProgress[];
}

export interface LocalGroupProgress {
  releaseAt: number;
  /** Minutes east of UTC its recipients' zones have at releaseAt. */
  offsetMinutes: number;
  recipients: number;
  /** Missed its local time ('skip') or released only after expiry: never sent. */
  skipped: boolean;
  released: boolean;
  confirmed: number;
  /** While its sending is held for its quiet hours: when they end. */
  heldUntil?: number;
}
