import type { ChannelHold, TaskReport } from '@herald/core/task';
import type { UnitProgressMessage } from '@herald/transport';
import type { TaskEntry } from './task-table';

/**
 * What the delivery channel adds to a sending task's report (docs/delivery.md,
 * "Dead letters" and "Pacing by the channel's health"): its dead letters by
 * reason and whether the channel holds its sending. Pure: the unit driver
 * writes the result with the task's totals.
 */

/** Distinct reasons a task's report keeps; the rest count as `other` (a receiver's reasons are unbounded). */
export const MAX_DEAD_LETTER_REASONS = 64;

/**
 * Adds a batch's dead letters to the task's counts. Call it only for a report
 * that moved its unit's checkpoint: a replayed batch was counted already.
 * The counts start from the stored report's, so a new owner goes on from them.
 */
export function addDeadLetters(entry: TaskEntry, batch: UnitProgressMessage['deadLetters']): void {
  const reasons = Object.entries(batch ?? {}).filter(([, n]) => n > 0);
  if (reasons.length === 0) return;
  const counts = (entry.deadLetters ??= { ...entry.task.report.deadLetters });
  for (const [reason, n] of reasons) {
    const known = counts[reason] !== undefined || Object.keys(counts).length < MAX_DEAD_LETTER_REASONS - 1;
    const label = known ? reason : 'other';
    counts[label] = (counts[label] ?? 0) + n;
  }
}

/** Records the channel's hold a report carries; true when it changed (the report is then written at once). */
export function noteChannel(entry: TaskEntry, hold: ChannelHold | undefined): boolean {
  const next = hold === undefined ? null : { state: hold.state, reason: hold.reason };
  const current = entry.channel ?? entry.task.report.channel ?? null;
  entry.channel = next;
  return current?.state !== next?.state || current?.reason !== next?.reason;
}

/** The channel's part of the report to write: counts when this scheduler counted any, the hold unless `sending` ended. */
export function channelReport(entry: TaskEntry, sending: boolean): Pick<TaskReport, 'deadLetters' | 'channel'> {
  return {
    ...(entry.deadLetters === undefined ? {} : { deadLetters: entry.deadLetters }),
    ...(sending
      ? entry.channel === undefined
        ? {}
        : { channel: entry.channel }
      : (entry.channel ?? entry.task.report.channel ?? null) === null
        ? {}
        : { channel: null }),
  };
}
