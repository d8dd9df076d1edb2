import { join } from 'node:path';
import { systemClock, TOPICS, type DeliveryRecordLog, type Logger } from '@herald/core/ports';
import { ListRepository } from '@herald/audience';
import type { ExecutorAdapters, Open, Resources, TierAdapters } from '@herald/compose';
import { startOfflinePurge, watchOfflineStoreSize } from '@herald/executor';
import { LevelConfirmedBatchLog, LevelDeliveryRecordLog, LevelOfflineStore } from '@herald/store-level';
import {
  connectCoordinator,
  connectEventBus,
  openAccessStore,
  openAccountStore,
  openCampaignStore,
  openDeviceRegistry,
  openFrequencyCounter,
  openTaskStore,
  openUserAttributeLookup,
} from '../adapters';
import { openAudienceSources, openFilterSources } from '../audience-adapters';
import { openDeliveryGateway } from '../delivery';
import { usesDeviceRegistry } from '../push-delivery';
import { openHostBitmap } from './host-bitmap';
import type { TierContext } from './tier';

/** Opens a connection this tier owns: closed with the tier. */
async function owned<T extends { close(): Promise<void> | void }>(
  scope: Resources,
  name: string,
  opening: Promise<T>,
): Promise<T> {
  return scope.add(name, await opening, (r) => r.close());
}

/**
 * The production profile's adapters for one process: every store in MySQL
 * (riding out outages), ZooKeeper, Kafka. Each tier opens its own
 * connections, owned by the tier's scope.
 */
export function productionAdapters({ config, id, logger, meter, readiness }: TierContext): TierAdapters {
  return {
    clock: systemClock,
    lists: new ListRepository(join(config.dataDir, 'lists')),
    taskStore: (scope) => owned(scope, 'task store', openTaskStore(config, logger)),
    accessStore: (scope) => owned(scope, 'access store', openAccessStore(config, logger)),
    accountStore: (scope) => owned(scope, 'account store', openAccountStore(config, logger)),
    campaignStore: (scope) => owned(scope, 'campaign store', openCampaignStore(config, logger)),
    frequencyCounter: (scope) => owned(scope, 'frequency counter', openFrequencyCounter(config, logger)),
    filterAudiences: (scope) => openFilterSources(config, id, logger, meter, scope),
    apiAudiences: (scope) => openAudienceSources(config, id, logger, meter, scope),
    userAttributes: (scope) => owned(scope, 'user attributes', openUserAttributeLookup(config, logger)),
    coordinator: (scope) => owned(scope, 'coordinator', connectCoordinator(config, logger)),
    async eventBus(scope) {
      const bus = await owned(scope, 'event bus', connectEventBus(config, id, logger, meter));
      // Every topic exists and its partitions are known before the first publish needs them.
      readiness?.add({ name: 'kafka topics', run: () => bus.warmUp(Object.values(TOPICS)) });
      return bus;
    },
    progressInCoordinator: true,
    ...(usesDeviceRegistry(config)
      ? { deviceRegistry: (scope) => owned(scope, 'device registry', openDeviceRegistry(config, logger)) }
      : {}),
  };
}

/**
 * An executor process's own stores, under <dataDir>: its offline lists
 * (offline-<id>) and the batches it confirmed (confirmed-<id>, so that after
 * a restart it does not deliver them again when their unit runs from an
 * older checkpoint); deliveries to the file sink under deliveries/<id>; who
 * is online from the host's shared bitmap, mapped read-only.
 */
export function executorAdapters({ config, id, logger, meter }: TierContext): ExecutorAdapters {
  return {
    async offline(scope) {
      const offline = await owned(
        scope,
        'offline store',
        LevelOfflineStore.open(join(config.dataDir, `offline-${id}`), { rangeBits: config.offline.rangeBits }),
      );
      scope.add('offline size gauge', watchOfflineStoreSize(offline, meter, { logger }), (w) => w.stop());
      const purge = { intervalMs: config.offline.purgeIntervalMs, maxRecords: config.offline.purgeMaxRecords, logger };
      scope.add('offline purge', startOfflinePurge(offline, meter, purge), (p) => p.stop());
      return offline;
    },
    async confirmed(scope) {
      const confirmed = await owned(
        scope,
        'confirmed batches',
        LevelConfirmedBatchLog.open(join(config.dataDir, `confirmed-${id}`)),
      );
      scope.add('confirmed batches pruning', pruneConfirmedBatches(confirmed, logger), (p) => p.stop());
      return confirmed;
    },
    gateway: (scope) =>
      owned(
        scope,
        'delivery gateway',
        openDeliveryGateway(config, id, join(config.dataDir, 'deliveries', id), { logger, meter }),
      ),
    online: (scope) =>
      owned(
        scope,
        'online bitmap',
        openHostBitmap(config.production!, id, config.uinLimit, config.executor.bitmapWaitMs, logger),
      ),
  };
}

/**
 * An executor process's delivery records (docs/recipient-truth.md): each
 * batch it confirmed (which positions went online, which offline) and each
 * login outcome of its offline lists, in LevelDB under
 * <dataDir>/delivery-records-<id>, beside confirmed-<id>. Its management
 * endpoint serves them to the interface processes (GET /records/...).
 */
export function executorDeliveryRecords({ config, id }: TierContext): Open<DeliveryRecordLog> {
  return (scope) =>
    owned(scope, 'delivery records', LevelDeliveryRecordLog.open(join(config.dataDir, `delivery-records-${id}`)));
}

/** How often the confirmed-batch log forgets the records of expired tasks. */
const PRUNE_CONFIRMED_MS = 3_600_000;

/** Prunes the records of expired tasks now and then every PRUNE_CONFIRMED_MS (a failed prune is retried at the next). */
function pruneConfirmedBatches(log: LevelConfirmedBatchLog, logger: Logger): { stop(): void } {
  const prune = () =>
    log.prune(Date.now()).then(
      (dropped) => dropped > 0 && logger.info('confirmed batches of expired tasks pruned', { dropped }),
      (error: unknown) => logger.warn('pruning confirmed batches failed', { error: String(error) }),
    );
  void prune();
  const timer = setInterval(() => void prune(), PRUNE_CONFIRMED_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
