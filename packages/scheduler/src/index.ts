/**
 * @module @herald/scheduler
 *
 * The scheduler tier: owns tasks (fenced by epoch), drives the task and unit
 * state machines in the TaskStore, keeps the ready queue by schedule score and
 * admits tasks while executor slots are free. Recovers every live task at start.
 *
 * @example
 *   const scheduler = await startScheduler({ config, store, inbox, toDispatcher });
 *   scheduler.stats(); // { active, queued, scheduled, owned }
 */
export { startScheduler } from './scheduler';
export type { Scheduler, SchedulerDeps } from './scheduler';
export { SerialQueue } from './serial';
export { storeRecorder, coordinatorRecorder } from './progress-recorder';
export type { ProgressRecorder } from './progress-recorder';
