/**
 * @module @herald/core/retry
 *
 * The one retry helper: runs an operation again while it fails with a `retriable`
 * HeraldError, with jittered backoff and injected timings; and the task store and
 * coordinator wrapped in it.
 *
 * @example
 *   import { retry } from '@herald/core/retry';
 *   await retry(() => store.createTask(task), { now: Date.now, sleep });
 */
export { retry } from './retry';
export type { RetryOptions } from './retry';
export { retryingTaskStore, retryingCoordinator, withRetries } from './retrying-task-store';
