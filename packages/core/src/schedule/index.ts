/**
 * @module @herald/core/schedule
 *
 * The schedule score (class + aging + size + deadline + account, docs/scheduling.md) and
 * the priority queue the scheduler keeps ready tasks in.
 *
 * @example
 *   import { scheduleScore, PriorityQueue } from '@herald/core/schedule';
 *   ready.push(task, scheduleScore(task, now));
 */
export { scheduleScore, SCORE } from './score';
export type { ScoreInput } from './score';
export { PriorityQueue } from './priority-queue';
