import { noopLogger, systemClock, type Clock, type Logger, type Meter, type OfflineStore } from '@herald/core/ports';

export interface OfflinePurgeOptions {
  /** Time between sweeps, ms; 0: no sweep. */
  intervalMs: number;
  /** The most records one sweep removes (OfflineStore.purgeExpired's bound): the purge's rate is at most this per interval. */
  maxRecords: number;
  clock?: Clock;
  logger?: Logger;
}

export interface OfflinePurgeSweep {
  /** One sweep now (what a timer tick runs); resolves with the entries it removed. Sweeps never overlap. */
  sweep(): Promise<number>;
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/**
 * The background purge of expired offline entries (docs/delivery.md,
 * "Expiry and purge"): every `intervalMs`, one `purgeExpired(now,
 * maxRecords)` call on the store, so a purge never takes more than its share
 * of the store from the batches and logins beside it, and a backlog is worked
 * off one bounded step a tick. Logins drop expired entries anyway; the sweep
 * is what reclaims them (and delivered entries of expired tasks) for users
 * who never log in. Counts herald_executor_offline_purged_entries_total. The
 * process that opens the store starts it (in the embedded profile one store
 * and one sweep serve every executor).
 */
export function startOfflinePurge(store: OfflineStore, meter: Meter, options: OfflinePurgeOptions): OfflinePurgeSweep {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? noopLogger;
  const purged = meter.counter(
    'herald_executor_offline_purged_entries_total',
    'Offline entries of expired tasks removed by the background purge (delivered ones not yet reclaimed included)',
  );
  let running: Promise<number> | undefined;
  const sweep = (): Promise<number> => {
    running ??= store
      .purgeExpired(clock.now(), options.maxRecords)
      .then((result) => {
        if (result.entries > 0) purged.inc(undefined, result.entries);
        return result.entries;
      })
      .finally(() => (running = undefined));
    return running;
  };
  const timer =
    options.intervalMs > 0
      ? setInterval(() => {
          sweep().catch((error: unknown) => logger.warn('offline purge failed', { error: String(error) }));
        }, options.intervalMs)
      : undefined;
  timer?.unref();
  return {
    sweep,
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
