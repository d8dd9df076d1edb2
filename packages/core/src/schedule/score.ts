import type { PriorityClass } from '../task/model';

/**
 * The schedule score orders the ready queue: higher runs first.
 *
 *   score = class + aging + size + deadline + account
 *
 *   class     1,000,000 for real-time tasks, 0 for normal ones: a real-time
 *             task always outranks every normal task.
 *   aging     10 points per minute waited, capped at 100,000: a normal task
 *             waiting long enough outranks any fresh normal task, so nothing
 *             starves.
 *   size      0..100, more for smaller audiences (100 * (1 - log10(n) / 9)):
 *             short tasks finish and free their slot sooner.
 *   deadline  0..1,000, rising linearly as the time left before expiry falls
 *             under one hour: a task about to expire is sent before it does.
 *   account   100 * weight, weight in [0, 10] (the account's standing).
 */
export interface ScoreInput {
  priority: PriorityClass;
  /** Epoch ms the task became ready (its send time, or enqueue time if later). */
  readySince: number;
  recipients: number;
  expiresAt: number;
  accountWeight?: number;
}

export const SCORE = {
  realtimeBase: 1_000_000,
  agingPerMinute: 10,
  agingCap: 100_000,
  sizeMax: 100,
  deadlineMax: 1_000,
  deadlineWindowMs: 3_600_000,
  accountUnit: 100,
} as const;

export function scheduleScore(input: ScoreInput, now: number): number {
  const base = input.priority === 'realtime' ? SCORE.realtimeBase : 0;
  const waitedMinutes = Math.max(0, now - input.readySince) / 60_000;
  const aging = Math.min(SCORE.agingCap, waitedMinutes * SCORE.agingPerMinute);
  const n = Math.max(1, input.recipients);
  const size = SCORE.sizeMax * Math.max(0, 1 - Math.log10(n) / 9);
  const slack = input.expiresAt - now;
  const deadline =
    slack >= SCORE.deadlineWindowMs
      ? 0
      : SCORE.deadlineMax * Math.min(1, 1 - Math.max(0, slack) / SCORE.deadlineWindowMs);
  const weight = Math.min(10, Math.max(0, input.accountWeight ?? 0));
  return base + aging + size + deadline + weight * SCORE.accountUnit;
}
