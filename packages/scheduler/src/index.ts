/**
 * @module @herald/scheduler
 *
 * The scheduler tier: owns tasks (fenced by epoch), drives the task and unit
 * state machines in the TaskStore, keeps the ready queue by schedule score and
 * admits tasks while executor slots are free. Recovers every live task the
 * ring gives it at start, and follows ring changes through `rebalance` (plus a
 * periodic sweep).
 *
 * @example
 *   const scheduler = await startScheduler({ config, store, inbox, toDispatcher, ring: () => membership.ring() ?? EMPTY_RING });
 *   membership.onChange((change) => { if (change.type === 'ring') void scheduler.rebalance(); });
 *   scheduler.stats(); // { active, queued, scheduled, owned }
 */
export { startScheduler } from './scheduler';
export type { Rebalanced, Scheduler, SchedulerDeps } from './scheduler';
export { SerialQueue } from './serial';
export { storeRecorder, coordinatorRecorder } from './progress-recorder';
export type { ProgressRecorder } from './progress-recorder';
