import {
  addSample,
  describeWaiting,
  emptyHistory,
  estimatedFinish,
  recentRate,
  type ProgressSample,
  type TaskProgressRecord,
  type WaitingReason,
} from '@herald/core/progress';
import type { LocalGroup, Task } from '@herald/core/task';

/** The current rate is measured over the curve's last this many ms. */
export const RATE_WINDOW_MS = 10_000;

/** GET /api/v1/tasks/:id/progress (docs/api.md, GET /api/v1/tasks/:id/progress). */
export interface ProgressAnswer {
  taskId: number;
  state: Task['state'];
  /** Recipients left after the filter chain: what "done" means; null before pre-processing. */
  total: number | null;
  /** Delivered + offline so far. */
  confirmed: number;
  /** Whether the owning scheduler kept a curve for this task (not for tasks from before it did, nor before it sent). */
  recorded: boolean;
  /** The curve's spacing now (it halves its resolution as it grows). */
  intervalMs: number;
  samples: ProgressSample[];
  /** Recipients a second over the last RATE_WINDOW_MS of the curve, while the task sends; else 0. */
  ratePerSecond: number;
  /** When the task should be done at that rate (epoch ms), while it sends; else null. */
  etaAt: number | null;
  /** Why a queued task waits; null otherwise. */
  waiting: (WaitingReason & { message: string }) | null;
  /** While a sending task's groups are held for their recipients' quiet hours (docs/local-time.md): why it sends nothing to them. */
  quietHold?: QuietHoldProgress;
  /**
   * A local-time task's groups in release order (docs/local-time.md): when
   * each is released, under which offset, its size and how far it got.
   * Absent for a task of one instant or before pre-processing.
   */
  localGroups?: LocalGroupProgress[];
}

/** One group of a local-time task, as the progress answer shows it. */
export interface LocalGroupProgress {
  releaseAt: number;
  offsetMinutes: number;
  recipients: number;
  skipped: boolean;
  released: boolean;
  confirmed: number;
  /** While its sending is held for its quiet hours: when they end. */
  heldUntil?: number;
}

/** The groups held for quiet hours now: until the earliest end, their recipients not sent yet, in words. */
export interface QuietHoldProgress {
  until: number;
  recipients: number;
  message: string;
}

/**
 * The answer from the task and its stored record. The curve ends at the
 * task's report when that is ahead of it: the scheduler writes the curve
 * every few seconds but the report four times a second, so a live chart
 * stays current between writes, and a task paused or cancelled between two
 * writes still ends at its count. A waiting reason is shown only while the
 * task is queued (the record may still hold one from just before its
 * admission).
 */
export function progressAnswer(task: Task, record: TaskProgressRecord | undefined, now: number): ProgressAnswer {
  const confirmed = task.report.delivered + task.report.offline;
  let history = record?.history ?? emptyHistory();
  const head = history.samples[history.samples.length - 1];
  if (head !== undefined && confirmed > head.confirmed)
    history = addSample(history, { at: Math.max(task.updatedAt, head.at), confirmed });
  const groups = task.report.localGroups;
  // A skipped group is never sent: "done" is everyone else.
  const skipped = (groups ?? []).reduce((n, g) => n + (g.skipped ? g.end - g.start : 0), 0);
  const total = task.filteredListId === null ? null : task.report.kept - skipped;
  const sending = task.state === 'SENDING';
  const ratePerSecond = sending ? Math.round(recentRate(history, RATE_WINDOW_MS)) : 0;
  const queued = task.state === 'QUEUED' || task.state === 'PREEMPTED';
  const waiting = queued && record?.waiting ? { ...record.waiting, message: describeWaiting(record.waiting) } : null;
  const quietHold = sending ? quietHoldOf(groups, now) : undefined;
  return {
    taskId: task.id,
    state: task.state,
    total,
    confirmed: Math.max(confirmed, history.samples[history.samples.length - 1]?.confirmed ?? 0),
    recorded: record !== undefined && record.history.samples.length > 0,
    intervalMs: history.intervalMs,
    samples: history.samples,
    ratePerSecond,
    etaAt: sending && total !== null ? etaOf(estimatedFinish(history, total, ratePerSecond), groups) : null,
    waiting,
    ...(quietHold === undefined ? {} : { quietHold }),
    ...(groups === undefined
      ? {}
      : {
          localGroups: groups.map((g) => ({
            releaseAt: g.releaseAt,
            offsetMinutes: g.offsetMinutes,
            recipients: g.end - g.start,
            skipped: g.skipped,
            released: g.released,
            confirmed: g.delivered + g.offline,
            ...(g.heldUntil !== undefined && g.heldUntil > now ? { heldUntil: g.heldUntil } : {}),
          })),
        }),
  };
}

/** The groups whose sending is held for their quiet hours at `now`, or undefined when none is. */
function quietHoldOf(groups: readonly LocalGroup[] | undefined, now: number): QuietHoldProgress | undefined {
  let until: number | undefined;
  let recipients = 0;
  for (const g of groups ?? []) {
    if (g.heldUntil === undefined || g.heldUntil <= now) continue;
    until = until === undefined ? g.heldUntil : Math.min(until, g.heldUntil);
    recipients += Math.max(0, g.end - g.start - g.delivered - g.offline);
  }
  if (until === undefined) return undefined;
  const at = new Date(until).toISOString();
  return {
    until,
    recipients,
    message: `held for quiet hours until ${at.slice(11, 16)} UTC on ${at.slice(0, 10)} for ${recipients} recipients`,
  };
}

/** A local-time task is not done before its last group is released, whatever its rate says. */
function etaOf(byRate: number | null, groups: readonly LocalGroup[] | undefined): number | null {
  const last = Math.max(
    ...(groups ?? []).filter((g) => !g.skipped).map((g) => Math.max(g.releaseAt, g.heldUntil ?? 0)),
  );
  if (byRate === null || !Number.isFinite(last)) return byRate;
  return Math.max(byRate, last);
}
