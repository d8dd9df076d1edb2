import { noopLogger, type Logger, type Meter, type OfflineStore } from '@herald/core/ports';

/** How often the offline store's size is read, by default. */
export const OFFLINE_SIZE_EVERY_MS = 15_000;

/**
 * Sets herald_executor_offline_store_bytes from the offline store's own
 * estimate (OfflineStore.approximateBytes) now and every `everyMs`: how much
 * the offline lists of this process take on disk. The process that opens the
 * store calls it (in the embedded profile every executor shares one store).
 * A store without the estimate gets no gauge; a failed read is logged at
 * debug and tried again next time. Returns what stops it.
 */
export function watchOfflineStoreSize(
  store: OfflineStore,
  meter: Meter,
  options: { everyMs?: number; logger?: Logger } = {},
): { stop(): void } {
  const estimate = store.approximateBytes?.bind(store);
  if (estimate === undefined) return { stop() {} };
  const logger = options.logger ?? noopLogger;
  const gauge = meter.gauge(
    'herald_executor_offline_store_bytes',
    "Bytes the offline lists take on disk (the store's estimate; entries are kept after delivery until purged)",
  );
  let reading = false;
  const read = () => {
    if (reading) return;
    reading = true;
    estimate()
      .then((bytes) => gauge.set(bytes))
      .catch((error: unknown) => logger.debug('offline store size not read', { error: String(error) }))
      .finally(() => (reading = false));
  };
  read();
  const timer = setInterval(read, options.everyMs ?? OFFLINE_SIZE_EVERY_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
