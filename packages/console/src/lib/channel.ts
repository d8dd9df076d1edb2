import type { ChannelHold, TaskReport } from '../api/types';

/** What the task page says while the delivery channel holds a task (docs/delivery.md, "Pacing by the channel's health"). */
export function channelHoldText(hold: ChannelHold): string {
  const what = hold.state === 'throttled' ? 'Channel throttled' : 'Channel unavailable';
  return `${what}: sending is held and resumes by itself. ${hold.reason}`;
}

/** The dead letters of a report, most first, and their total (docs/delivery.md, "Dead letters"). */
export function deadLettersOf(report: TaskReport): { total: number; byReason: [string, number][] } {
  const byReason = Object.entries(report.deadLetters ?? {}).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return { total: byReason.reduce((sum, [, n]) => sum + n, 0), byReason };
}
