import type { Task } from '../api/types';
import { fmtDuration } from './format';

/** A scheduled task starting sooner than this gets the countdown; a later one shows its send time in the summary. */
export const COUNTDOWN_WINDOW_MS = 3_600_000;

/** True while the task waits to start and its send time is near enough to count down to. */
export function showsCountdown(task: Pick<Task, 'state' | 'sendAt'>, now: number): boolean {
  return task.state === 'SCHEDULED' && task.sendAt - now <= COUNTDOWN_WINDOW_MS;
}

/** "Sending in 8 s": whole seconds rounded up, so it never shows 0 s while there is time left. */
export function countdownText(sendAt: number, now: number): string {
  const left = sendAt - now;
  return left > 0 ? `Sending in ${fmtDuration(Math.ceil(left / 1000) * 1000)}` : 'Starting…';
}
