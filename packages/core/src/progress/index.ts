/**
 * @module @herald/core/progress
 *
 * A task's progress over time, pure: the curve of confirmed counts its owning
 * scheduler samples while it sends, thinned by halving its resolution so it
 * stays bounded whatever the task's length; the current rate and an ETA from
 * it; why a queued task waits (docs/api.md, GET /api/v1/tasks/:id/progress).
 *
 * @example
 *   import { addSample, emptyHistory, recentRate } from '@herald/core/progress';
 *   let history = emptyHistory();
 *   history = addSample(history, { at: now, confirmed: delivered + offline });
 *   const rate = recentRate(history, 10_000);
 */
export {
  addSample,
  checkHistory,
  DEFAULT_HISTORY_LIMITS,
  emptyHistory,
  estimatedFinish,
  halveResolution,
  recentRate,
} from './history';
export type { HistoryLimits, ProgressHistory, ProgressSample } from './history';
export { checkWaiting, describeWaiting, MAX_HOLDERS_NAMED, sameWaiting } from './waiting';
export type { WaitingReason } from './waiting';
export { checkProgressRecord } from './record';
export type { TaskProgressRecord } from './record';
