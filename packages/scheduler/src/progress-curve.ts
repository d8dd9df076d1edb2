import { FencedError } from '@herald/core';
import {
  addSample,
  emptyHistory,
  MAX_HOLDERS_NAMED,
  sameWaiting,
  type TaskProgressRecord,
  type WaitingReason,
} from '@herald/core/progress';
import { fenceOf, type SchedulerContext } from './context';
import { unitTotals, type TaskEntry } from './task-table';

/**
 * How often a sending task's curve is written to the task store: a failover
 * loses at most this much of it (the counts themselves are in the units).
 */
export const CURVE_WRITE_EVERY_MS = 5_000;
/** A waiting task's reason is written again, when it changed, at most this often. */
export const WAITING_WRITE_EVERY_MS = 5_000;
/** Waiting reasons are looked at no more often than this (admission runs after every message). */
export const WAITING_PASS_EVERY_MS = 1_000;
/** At most this many waiting reasons written in one pass. */
export const WAITING_WRITES_PER_PASS = 32;

/**
 * The owner's record of each task's progress over time (core `progress`):
 * a sample of its confirmed count on every confirmed batch (one a second is
 * kept, thinned as it ages), written to the task store every
 * CURVE_WRITE_EVERY_MS and when it finishes, so GET /tasks/:id/progress and
 * a scheduler taking the task over read it back; and, for a task left in the
 * ready queue with every sender slot taken, why it waits.
 */
export interface ProgressCurve {
  /** Samples a running task's confirmed count; writes the record when due or when `final`. */
  sample(taskId: number, final: boolean): Promise<void>;
  /** Writes why each queued task waits, where that changed (at most every WAITING_WRITE_EVERY_MS per task). */
  noteWaiting(): Promise<void>;
}

export function createProgressCurve(ctx: SchedulerContext): ProgressCurve {
  const { store, clock, logger, tasks, config } = ctx;

  /** The record as this scheduler holds it; read from the store the first time (another owner may have begun it). */
  async function recordOf(entry: TaskEntry): Promise<TaskProgressRecord> {
    entry.progress ??= (await store.getProgress(entry.task.id)) ?? {
      history: emptyHistory(),
      waiting: null,
      updatedAt: clock.now(),
    };
    return entry.progress;
  }

  /** Writes the record. A newer owner (FENCED) is the job loop's to handle; anything else only costs a stale curve. */
  async function write(entry: TaskEntry, record: TaskProgressRecord): Promise<void> {
    const now = clock.now();
    const next = { ...record, updatedAt: now };
    try {
      await store.putProgress(entry.task.id, fenceOf(entry.task), next);
      entry.progress = next;
      entry.progressWrittenAt = now;
    } catch (error) {
      if (error instanceof FencedError) throw error;
      logger.warn('writing a task progress curve failed; the next sample writes it again', {
        taskId: entry.task.id,
        error: String(error),
      });
    }
  }

  async function sample(taskId: number, final: boolean): Promise<void> {
    const entry = tasks.get(taskId);
    if (entry === undefined || entry.units === undefined) return;
    const record = await recordOf(entry);
    const { delivered, offline } = unitTotals(entry.units);
    const now = clock.now();
    entry.progress = {
      ...record,
      history: addSample(record.history, { at: now, confirmed: delivered + offline }),
      waiting: null,
    };
    if (final || record.waiting !== null || now - entry.progressWrittenAt >= CURVE_WRITE_EVERY_MS)
      await write(entry, entry.progress);
  }

  let lastPassAt = -Infinity;

  /**
   * Every waiting task's reason: the same slots and holders for all, and its
   * place in the queue. A pass runs at most once a second and writes at most
   * WAITING_WRITES_PER_PASS records, the queue's head first: with a thousand
   * tasks queued, the ones nearest a slot are kept current and the rest catch
   * up over the following passes.
   */
  async function noteWaiting(): Promise<void> {
    const now = clock.now();
    if (now - lastPassAt < WAITING_PASS_EVERY_MS) return;
    lastPassAt = now;
    const holders = tasks
      .all()
      .filter((e) => e.active)
      .map((e) => e.task.id)
      .sort((a, b) => a - b);
    if (holders.length < config.scheduler.slots) return; // a free slot: nothing waits for one
    let writes = 0;
    for (const [ahead, taskId] of tasks.readyOrder().entries()) {
      if (writes >= WAITING_WRITES_PER_PASS) return;
      const entry = tasks.get(taskId);
      if (entry === undefined || entry.active || (entry.task.state !== 'QUEUED' && entry.task.state !== 'PREEMPTED'))
        continue;
      const reason: WaitingReason = {
        reason: 'sender_slots',
        slots: config.scheduler.slots,
        inUse: holders.length,
        heldBy: holders.slice(0, MAX_HOLDERS_NAMED),
        ahead,
        since: now,
      };
      if (entry.progress === undefined) writes++; // its first read is I/O too
      const record = await recordOf(entry);
      if (sameWaiting(record.waiting, reason)) continue;
      if (record.waiting !== null && now - entry.progressWrittenAt < WAITING_WRITE_EVERY_MS) continue;
      writes++;
      await write(entry, { ...record, waiting: { ...reason, since: record.waiting?.since ?? now } });
    }
  }

  return { sample, noteWaiting };
}
