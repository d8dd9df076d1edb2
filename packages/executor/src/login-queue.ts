import { isHeraldError } from '@herald/core';
import { noopLogger, noopMeter, type Logger, type Meter } from '@herald/core/ports';
import type { LoginDelivery } from './login-delivery';

export interface LoginQueueOptions {
  /** Users waiting at most; more are dropped (counted, logged). A dropped user's entries stay and go at the next login. */
  maxPending: number;
  labels: { executor: string };
  logger?: Logger;
  meter?: Meter;
}

export interface LoginQueue {
  /** Queues the users' offline lists to be walked, in order; never waits. */
  enqueue(uins: Uint32Array): void;
  /** Resolves once everything queued so far has been walked. */
  idle(): Promise<void>;
  readonly pending: number;
}

/**
 * Walks the offline lists of users who logged in, one user at a time, beside
 * the batch loop (a login storm must not hold up broadcasts). Nothing here
 * can lose an entry: a walk that fails, or a user dropped because the queue
 * is full, leaves the entries in the store for the next login.
 */
export function createLoginQueue(logins: LoginDelivery, options: LoginQueueOptions): LoginQueue {
  const logger = options.logger ?? noopLogger;
  const meter = options.meter ?? noopMeter;
  const walked = meter.counter('herald_executor_login_walks_total', 'Offline lists walked at login, by result', [
    'executor',
    'result',
  ]);
  const atLogin = meter.counter('herald_executor_login_delivered_total', 'Offline entries delivered at login', [
    'executor',
  ]);
  const expired = meter.counter(
    'herald_executor_login_expired_total',
    'Offline entries dropped at login: their task expired or is gone',
    ['executor'],
  );
  const errors = meter.counter(
    'herald_executor_errors_total',
    'Batches not confirmed and login walks that failed, by error code',
    ['executor', 'code'],
  );
  const depth = meter.gauge('herald_executor_login_queue', 'Users waiting for their offline list to be walked', [
    'executor',
  ]);
  const overFrequency = meter.counter(
    'herald_executor_login_over_frequency_total',
    'Offline entries dropped at login: the user had no released, unused frequency slot left that day',
    ['executor'],
  );
  const heldInQuietHours = meter.counter(
    'herald_executor_login_held_total',
    "Offline entries kept at login for a later one: inside their task's quiet hours, the account holding logins",
    ['executor'],
  );
  const waiting: number[] = [];
  let head = 0;
  let running: Promise<void> | undefined;

  async function drain(): Promise<void> {
    while (head < waiting.length) {
      const uin = waiting[head++]!;
      depth.set(waiting.length - head, options.labels);
      if (head > 4096 && head * 2 > waiting.length) {
        waiting.splice(0, head);
        head = 0;
      }
      try {
        const result = await logins.deliver(uin);
        walked.inc({ ...options.labels, result: 'ok' });
        atLogin.inc(options.labels, result.delivered);
        if (result.expired > 0) expired.inc(options.labels, result.expired);
        if (result.overFrequency > 0) overFrequency.inc(options.labels, result.overFrequency);
        if (result.held > 0) heldInQuietHours.inc(options.labels, result.held);
      } catch (error) {
        walked.inc({ ...options.labels, result: 'failed' });
        errors.inc({ ...options.labels, code: isHeraldError(error) ? error.code : 'INTERNAL' });
        logger.warn('offline list not walked at login; its entries wait for the next login', {
          uin,
          error: String(error),
        });
      }
    }
    running = undefined;
    depth.set(0, options.labels);
  }

  return {
    enqueue(uins) {
      let dropped = 0;
      for (let i = 0; i < uins.length; i++) {
        if (waiting.length - head >= options.maxPending) dropped++;
        else waiting.push(uins[i]!);
      }
      if (dropped > 0) {
        walked.inc({ ...options.labels, result: 'dropped' }, dropped);
        logger.warn('login queue full: users dropped, their entries wait for the next login', {
          dropped,
          maxPending: options.maxPending,
        });
      }
      depth.set(waiting.length - head, options.labels);
      running ??= drain();
    },
    async idle() {
      while (running !== undefined) await running;
    },
    get pending() {
      return waiting.length - head;
    },
  };
}
