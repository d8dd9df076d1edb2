import { join } from 'node:path';
import { compileConfig, type HeraldConfig, type HeraldOptions } from '@herald/core/config';
import {
  systemClock,
  type Clock,
  type DeliveryGateway,
  type FrequencyCounter,
  type Logger,
  type AccessStore,
  type AccountStore,
  type CampaignStore,
  type AttributeIndex,
  type FollowerStore,
  type OfflineStore,
  type TaskStore,
} from '@herald/core/ports';
import { TypedArrayBitmap, type OnlineBitmap } from '@herald/core/presence';
import { ListRepository } from '@herald/audience';
import {
  buildController,
  buildDispatcher,
  buildExecutor,
  buildInterface,
  buildLoginDelivery,
  buildScheduler,
  Resources,
  type ExecutorAdapters,
  type Open,
  type TierAdapters,
} from '@herald/compose';
import type { Scheduler } from '@herald/scheduler';
import {
  createDeliveryGateway,
  channelControlOf,
  startOfflinePurge,
  watchOfflineStoreSize,
  type OfflinePurgeOptions,
} from '@herald/executor';
import { createJsonLogger, createPromMeter, type PromMeter } from '@herald/metrics';
import { createLocalCoordinatorCluster } from '@herald/coordinator-local';
import { InprocLinks } from './inproc-links';
import { openSharedStores, type SharedStores } from './stores';

export interface EmbeddedCluster {
  readonly config: HeraldConfig;
  /** Base URL of the HTTP API, e.g. http://127.0.0.1:8080 */
  readonly url: string;
  readonly store: TaskStore;
  /** API tokens and the audit log. */
  readonly access: AccessStore;
  /** Cron campaigns and their firing history (docs/campaigns.md). */
  readonly campaigns: CampaignStore;
  /** B-side quotas: account limits and the broadcasts reserved against them (docs/account-quotas.md). */
  readonly accounts: AccountStore;
  readonly offline: OfflineStore;
  /** Followers of each account: the `followers` audience source (docs/audience-sources.md). */
  readonly followers: FollowerStore;
  /** Users' attributes as per-value bitsets: the `targeting` audience source. */
  readonly attributes: AttributeIndex;
  /** Per-user daily broadcast counts (docs/frequency.md), shared by the dispatcher and every executor; null unless frequency.enabled. */
  readonly frequency: FrequencyCounter | null;
  readonly lists: ListRepository;
  readonly online: OnlineBitmap;
  /** Where the file delivery sink writes (docs/delivery-file-sink.md). */
  readonly deliveryDir: string;
  readonly meter: PromMeter;
  readonly scheduler: Scheduler;
  /** Logs users in: marks them online, then delivers their offline lists. */
  login(uins: ArrayLike<number>): Promise<{ delivered: number; expired: number; overFrequency: number; held: number }>;
  logout(uins: ArrayLike<number>): void;
  stop(): Promise<void>;
}

export interface EmbeddedDeps {
  logger?: Logger;
  clock?: Clock;
  /** Who is online. Default: a fresh in-process bitmap (presence is not persisted). */
  online?: OnlineBitmap;
  /** Where pushes go. Default: the file sink under <dataDir>/deliveries. */
  gateway?: DeliveryGateway;
  /**
   * Benchmarks only (bench/fanout.js --records-cost): the executors keep no
   * delivery records, so a run measures what keeping them costs the send
   * path. The API then cannot say what happened to a reached recipient (it
   * answers not_reached or unknown): never for a cluster anyone asks.
   */
  benchWithoutDeliveryRecords?: boolean;
}

/**
 * The embedded profile: every tier in this process, talking over ZeroMQ
 * inproc sockets exactly as separate processes talk over tcp; LevelDB stores
 * and every file under one data directory. The tiers are built by
 * @herald/compose as in production; this profile only chooses the adapters:
 *
 *   <dataDir>/tasks       LevelTaskStore
 *   <dataDir>/access      LevelAccessStore (API tokens, audit log)
 *   <dataDir>/offline     LevelOfflineStore
 *   <dataDir>/campaigns   LevelCampaignStore (cron campaigns, fired by the controller below)
 *   <dataDir>/followers   LevelFollowerStore (the followers audience; changes come by POST /api/v1/follows)
 *   <dataDir>/attributes  LevelAttributeIndex (the targeting audience; users by POST /api/v1/user-attributes)
 *   <dataDir>/follower-copies  local copies of big accounts' followers (audiences.followerCopyThreshold)
 *   <dataDir>/accounts    LevelAccountStore (B-side quotas, checked by the API and by campaign firings)
 *   <dataDir>/frequency   LevelFrequencyCounter (with frequency.enabled): one instance, shared
 *                         in-process by the dispatcher's filter, every executor and login delivery
 *   <dataDir>/lists       recipient-list files (uploads, filtered lists, blacklists)
 *   <dataDir>/deliveries  file delivery sink
 *   <dataDir>/delivery-records  LevelDeliveryRecordLog: each confirmed batch's online positions and
 *                         each login walk's outcomes, read by GET /api/v1/tasks/:id/recipients/:uin
 */
export async function startEmbeddedCluster(
  options: HeraldOptions = {},
  deps: EmbeddedDeps = {},
): Promise<EmbeddedCluster> {
  const config = compileConfig(options);
  const logger = deps.logger ?? createJsonLogger({ level: 'warn' });
  const clock = deps.clock ?? systemClock;
  const meter = createPromMeter({ defaultMetrics: false });
  // Owns everything below; closing it stops the tiers newest first (the API first), then the stores.
  const scope = new Resources(logger);
  return scope.starting(async () => {
    const shared = await openSharedStores(config, logger, scope);
    const lists = new ListRepository(join(config.dataDir, 'lists'));
    const deliveryDir = join(config.dataDir, 'deliveries');
    const gateway = scope.add(
      'delivery gateway',
      deps.gateway ?? createDeliveryGateway(config.delivery, deliveryDir, { clock, logger, meter }),
      (g) => g.close(),
    );
    // One store for every executor of the process: one gauge.
    scope.add('offline size gauge', watchOfflineStoreSize(shared.offline, meter, { logger }), (w) => w.stop());
    scope.add('offline purge', startOfflinePurge(shared.offline, meter, purgeOptions(config, clock, logger)), (p) =>
      p.stop(),
    );
    const online = deps.online ?? new TypedArrayBitmap(config.uinLimit);
    const links = scope.add('links', await InprocLinks.open(config, logger, meter), (l) => l.close());
    const adapters = embeddedAdapters(shared, lists, clock);
    const executorParts: ExecutorAdapters = {
      offline: lend(shared.offline),
      gateway: lend(gateway),
      online: lend(online),
    };
    const build = { config, adapters, scope, logger, meter };

    const { deliveryRecords: _unused, ...withoutRecords } = adapters;
    const executorAdapters = deps.benchWithoutDeliveryRecords === true ? withoutRecords : adapters;
    for (const id of config.executor.ids)
      await buildExecutor({
        ...build,
        adapters: executorAdapters,
        id,
        executor: executorParts,
        links: links.executor(id),
        // Its links send unit.progress version 2 (one build in one process).
        reportChannelHolds: true,
      });
    const { dispatcher } = await buildDispatcher({ ...build, links: links.dispatcher() });
    const { scheduler } = await buildScheduler({ ...build, links: links.scheduler() });
    // The controller fires cron campaigns: the only candidate on an in-process coordinator, with no
    // event bus (the outbox is not relayed in this profile); each firing's task goes to the scheduler.
    await buildController({ ...build, id: 'controller-1', links: links.controller() });
    const { url } = await buildInterface({
      ...build,
      links: links.interface(),
      views: () => ({ hostLoads: () => dispatcher.loads(), channels: channelControlOf(gateway) }),
    });
    const loginDelivery = await buildLoginDelivery({ ...build, executor: executorParts });

    return {
      config,
      url,
      store: shared.store,
      campaigns: shared.campaigns,
      accounts: shared.accounts,
      access: shared.access,
      offline: shared.offline,
      followers: shared.followers,
      attributes: shared.attributes,
      frequency: shared.counter,
      lists,
      online,
      deliveryDir,
      meter,
      scheduler,
      async login(uins) {
        const total = { delivered: 0, expired: 0, overFrequency: 0, held: 0 };
        for (let i = 0; i < uins.length; i++) online.setOnline(uins[i]!, true);
        for (let i = 0; i < uins.length; i++) {
          const result = await loginDelivery.deliver(uins[i]!);
          total.delivered += result.delivered;
          total.expired += result.expired;
          total.overFrequency += result.overFrequency;
          total.held += result.held;
        }
        return total;
      },
      logout(uins) {
        for (let i = 0; i < uins.length; i++) online.setOnline(uins[i]!, false);
      },
      // The API first (bounded by http.shutdownGraceMs whatever its clients do), then the controller,
      // each tier's sockets before it is awaited (a send blocked on a full peer then rejects), the stores last.
      stop: () => scope.closeAll(),
    };
  });
}

/** The background purge of the one offline store, paced by the `offline` settings. */
function purgeOptions(config: HeraldConfig, clock: Clock, logger: Logger): OfflinePurgeOptions {
  return { intervalMs: config.offline.purgeIntervalMs, maxRecords: config.offline.purgeMaxRecords, clock, logger };
}

/** Lends an adapter the cluster owns: every tier gets the same instance, closed once by the cluster. */
function lend<T>(value: T): Open<T> {
  return async () => value;
}

/** The embedded profile's choice: the shared LevelDB stores, an in-process coordinator, no event bus. */
function embeddedAdapters(shared: SharedStores, lists: ListRepository, clock: Clock): TierAdapters {
  const audiences = {
    followers: shared.followers,
    attributes: shared.attributes,
    ...(shared.followerCopies === undefined ? {} : { followerCopies: shared.followerCopies }),
  };
  return {
    clock,
    lists,
    taskStore: lend(shared.store),
    accessStore: lend(shared.access),
    accountStore: lend(shared.accounts),
    campaignStore: lend(shared.campaigns),
    // Opened with frequency.enabled, the only time a tier asks for it.
    frequencyCounter: async () => shared.counter!,
    filterAudiences: lend(audiences),
    apiAudiences: lend(audiences),
    // Template tasks read their recipients' attributes from the targeting store itself (docs/delivery.md).
    userAttributes: lend(shared.attributes),
    coordinator: async (scope) =>
      scope.add('coordinator', await createLocalCoordinatorCluster().connect(), (c) => c.close()),
    progressInCoordinator: false,
    deliveryRecords: lend(shared.deliveryRecords),
  };
}
