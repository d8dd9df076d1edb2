/**
 * @module @herald/core/retry
 *
 * The one retry helper: runs an operation again while it fails with a `retriable`
 * HeraldError, with jittered backoff and injected timings; and the coordinator
 * wrapped in it (adapters declare their own retries: core/src/adapter).
 *
 * @example
 *   import { retry } from '@herald/core/retry';
 *   await retry(() => store.createTask(task), { now: Date.now, sleep });
 */
export { retry } from './retry';
export type { RetryOptions } from './retry';
export { retryingCoordinator } from './retrying-coordinator';
