import type { Coordinator } from '../ports/coordinator';
import type { TaskStore } from '../ports/task-store';
import { retry, type RetryOptions } from './retry';

/**
 * Wraps a port so that every async call is retried on retriable errors (a
 * server restarting, a lost connection or session, a deadlock), so a tier
 * rides out a short outage instead of dropping the work it was doing. The
 * methods named in `except` (close, and anything long-lived) pass through.
 */
export function withRetries<T extends object>(target: T, options: RetryOptions, except: readonly string[] = ['close']): T {
  return new Proxy(target, {
    get(object, property, receiver) {
      const value = Reflect.get(object, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      if (typeof property !== 'string' || except.includes(property)) return (value as (...a: unknown[]) => unknown).bind(object);
      return (...args: unknown[]) => retry(() => (value as (...a: unknown[]) => Promise<unknown>).apply(object, args), options);
    },
  });
}

/**
 * A TaskStore that rides out outages. A write whose reply was lost may have
 * been applied: its retry then fails with the store's own typed answer (e.g.
 * ILLEGAL_TRANSITION for a repeated transition) rather than applying twice,
 * since every write is checked against the stored state, epoch and version.
 */
export function retryingTaskStore(store: TaskStore, options: RetryOptions): TaskStore {
  return withRetries(store, options);
}

/** A Coordinator that rides out a ZooKeeper restart or session loss; elections pass through. */
export function retryingCoordinator(coordinator: Coordinator, options: RetryOptions): Coordinator {
  return withRetries(coordinator, options, ['close', 'elect']);
}
