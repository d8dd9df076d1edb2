import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
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
import { PRIVATE_DIR_MODE } from '@herald/core';
import { FollowerCopies, ListRepository } from '@herald/audience';
import { LevelAccessStore, LevelAccountStore, LevelCampaignStore, LevelFrequencyCounter, LevelAttributeIndex, LevelFollowerStore, LevelOfflineStore, LevelTaskStore } from '@herald/store-level';
import { createPull, createPush, inprocEndpoint, type PullChannel, type PushChannel } from '@herald/transport';
import { startScheduler, type Scheduler } from '@herald/scheduler';
import { accountBlacklistId, buildFilterChain, createRecipientPreview, filterChainSources, GLOBAL_BLACKLIST_ID, startDispatcher } from '@herald/dispatcher';
import { createDeliveryGateway, createHostSampler, createUnitSlots, LoginDelivery, Personaliser, readProcCounters, speedShareOf, startExecutor, startLoadReporter, TaskCache, watchOfflineStoreSize, type FrequencyControl, type LoadReporter } from '@herald/executor';
import { createApiServer } from '@herald/interface';
import { createJsonLogger, createPromMeter, type PromMeter } from '@herald/metrics';
import { startController } from '@herald/controller';
import { createLocalCoordinatorCluster } from '@herald/coordinator-local';

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
  login(uins: ArrayLike<number>): Promise<{ delivered: number; expired: number; overFrequency: number }>;
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
}

/**
 * The embedded profile: every tier in this process, talking over ZeroMQ
 * inproc sockets exactly as separate processes talk over tcp; LevelDB stores
 * and every file under one data directory:
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
 */
export async function startEmbeddedCluster(options: HeraldOptions = {}, deps: EmbeddedDeps = {}): Promise<EmbeddedCluster> {
  const config = compileConfig(options);
  const logger = deps.logger ?? createJsonLogger({ level: 'warn' });
  const clock = deps.clock ?? systemClock;
  const meter = createPromMeter({ defaultMetrics: false });
  const dir = (name: string) => join(config.dataDir, name);
  await mkdir(config.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });

  const store = await LevelTaskStore.open(dir('tasks'));
  const access = await LevelAccessStore.open(dir('access'));
  const offline = await LevelOfflineStore.open(dir('offline'), { rangeBits: config.offline.rangeBits });
  const campaigns = await LevelCampaignStore.open(dir('campaigns'));
  const followers = await LevelFollowerStore.open(dir('followers'));
  const attributes = await LevelAttributeIndex.open(dir('attributes'));
  const accounts = await LevelAccountStore.open(dir('accounts'));
  // One set of local follower copies, kept by the audience routes and read by the dispatcher's follower check.
  const followerCopies = config.audiences.followerCopyThreshold > 0 ? new FollowerCopies(dir('follower-copies'), { logger }) : undefined;
  const counter = config.frequency.enabled ? await LevelFrequencyCounter.open(dir('frequency')) : null;
  const frequency: FrequencyControl | undefined = counter === null ? undefined : { policy: config.frequency.policy, counter };
  const lists = new ListRepository(dir('lists'));
  const deliveryDir = dir('deliveries');
  const gateway = deps.gateway ?? createDeliveryGateway(config.delivery, deliveryDir);
  const online = deps.online ?? new TypedArrayBitmap(config.uinLimit);
  const hwm = config.transport.highWaterMark;

  // Bind every inbox first, then connect the senders.
  const endpoints = {
    scheduler: inprocEndpoint('scheduler'),
    // Commands and pre-processing results reach the scheduler apart from the executors' progress reports.
    schedulerControl: inprocEndpoint('scheduler.control'),
    dispatcher: inprocEndpoint('dispatcher'),
    executors: new Map(config.executor.ids.map((id) => [id, inprocEndpoint(id)])),
    // A real-time task's batches overtake the normal batches queued in an executor's inbox.
    realtime: new Map(config.executor.ids.map((id) => [id, inprocEndpoint(`${id}.realtime`)])),
  };
  const pulls: PullChannel[] = [];
  const pull = async (name: string, endpoint: string) => {
    const channel = await createPull({ name, endpoint, highWaterMark: hwm, meter, logger });
    pulls.push(channel);
    return channel;
  };
  const pushes: PushChannel[] = [];
  const push = async (name: string, endpoint: string) => {
    const channel = await createPush({ name, endpoints: [endpoint], highWaterMark: hwm });
    pushes.push(channel);
    return channel;
  };

  const schedulerInbox = await pull('scheduler', endpoints.scheduler);
  const schedulerControl = await pull('scheduler.control', endpoints.schedulerControl);
  const dispatcherInbox = await pull('dispatcher', endpoints.dispatcher);
  const executorInboxes = new Map<string, PullChannel>();
  for (const [id, endpoint] of endpoints.executors) executorInboxes.set(id, await pull(id, endpoint));
  const realtimeInboxes = new Map<string, PullChannel>();
  for (const [id, endpoint] of endpoints.realtime) realtimeInboxes.set(id, await pull(`${id}.realtime`, endpoint));

  const toExecutor = new Map<string, PushChannel>();
  for (const [id, endpoint] of endpoints.executors) toExecutor.set(id, await push(`dispatcher->${id}`, endpoint));
  const toRealtimeExecutor = new Map<string, PushChannel>();
  for (const [id, endpoint] of endpoints.realtime) toRealtimeExecutor.set(id, await push(`dispatcher->${id}.realtime`, endpoint));

  const tasks = new TaskCache(store);
  // Template tasks read their recipients' attributes from the targeting store itself (docs/delivery.md).
  const personaliser = new Personaliser(attributes, logger);
  // Each executor reports its load to the dispatcher as in production, over the dispatcher's inproc inbox:
  // this host's /proc readings (every executor here shares the host) and its own free sender slots.
  const reporters: LoadReporter[] = [];
  const executors = await Promise.all(
    config.executor.ids.map(async (id) => {
      const slots = createUnitSlots(config.load.senderSlots);
      const toDispatcher = await push(`${id}->dispatcher`, endpoints.dispatcher);
      reporters.push(startLoadReporter({ executorId: id, config: config.load, sample: createHostSampler(() => readProcCounters()), freeSlots: slots.free, send: (m) => toDispatcher.send(m), logger }));
      return startExecutor({
        id,
        inbox: slots.watch(executorInboxes.get(id)!),
        realtimeInbox: slots.watch(realtimeInboxes.get(id)!),
        toScheduler: await push(`${id}->scheduler`, endpoints.scheduler),
        tasks,
        online,
        gateway,
        offline,
        ...(frequency ? { frequency } : {}),
        personaliser,
        // A task with a speed is sent at it: each executor paces its share (docs/scheduling.md "Pacing").
        pacing: { speedOf: speedShareOf(store, id, clock) },
        clock,
        logger,
        meter,
      });
    }),
  );
  // One set of filter sources for the dispatcher's pre-processing and the API's dry runs.
  const chainSources = filterChainSources({ config, store, lists, followers, attributes, clock, ...(followerCopies === undefined ? {} : { followerCopies }), ...(counter === null ? {} : { frequencyCounter: counter }) });
  const dispatcher = startDispatcher({
    config,
    inbox: dispatcherInbox,
    toScheduler: await push('dispatcher->scheduler', endpoints.schedulerControl),
    toExecutor,
    toRealtimeExecutor,
    lists,
    filters: buildFilterChain(chainSources),
    logger,
    meter,
  });
  const scheduler = await startScheduler({ config, store, inbox: schedulerInbox, controlInbox: schedulerControl, toDispatcher: await push('scheduler->dispatcher', endpoints.dispatcher), clock, logger, meter });
  // The controller fires cron campaigns: the only candidate on an in-process coordinator, with no
  // event bus (the outbox is not relayed in this profile); each firing's task goes to the scheduler.
  const toSchedulerFromController = await push('controller->scheduler', endpoints.schedulerControl);
  const coordinator = await createLocalCoordinatorCluster().connect();
  const controller = await startController(
    { id: 'controller-1', campaigns: { ...config.campaigns, defaultTtlMs: config.tasks.defaultTtlMs } },
    { coordinator, store, campaigns, quota: { accounts, policy: config.accounts }, submitTask: (taskId) => toSchedulerFromController.send({ kind: 'task.submitted', taskId }), clock, logger, meter },
  );

  const api = createApiServer({
    config,
    store,
    access,
    lists,
    campaigns,
    audiences: { followers, attributes, ...(followerCopies === undefined ? {} : { followerCopies }) },
    accounts,
    toScheduler: await push('interface->scheduler', endpoints.schedulerControl),
    hostLoads: () => dispatcher.loads(),
    previewRecipients: createRecipientPreview({ config, lists, sources: chainSources, clock }),
    clock,
    logger,
    blacklistIds: { global: GLOBAL_BLACKLIST_ID, forAccount: accountBlacklistId },
    meter,
    metrics: () => meter.exposition(),
  });
  const address = await api.listen({ host: config.http.host, port: config.http.port });
  const loginDelivery = new LoginDelivery(offline, gateway, tasks, clock, frequency, personaliser);
  // One store for every executor of the process: one gauge.
  const offlineSize = watchOfflineStoreSize(offline, meter, { logger });

  return {
    config,
    url: address,
    store,
    campaigns,
    accounts,
    access,
    offline,
    followers,
    attributes,
    frequency: counter,
    lists,
    online,
    deliveryDir,
    meter,
    scheduler,
    async login(uins) {
      const total = { delivered: 0, expired: 0, overFrequency: 0 };
      for (let i = 0; i < uins.length; i++) online.setOnline(uins[i]!, true);
      for (let i = 0; i < uins.length; i++) {
        const result = await loginDelivery.deliver(uins[i]!);
        total.delivered += result.delivered;
        total.expired += result.expired;
        total.overFrequency += result.overFrequency;
      }
      return total;
    },
    logout(uins) {
      for (let i = 0; i < uins.length; i++) online.setOnline(uins[i]!, false);
    },
    async stop() {
      // Bounded by http.shutdownGraceMs whatever the API's clients do (a stalled upload, a slow reader).
      await api.close();
      await controller.stop();
      await coordinator.close();
      await Promise.all(reporters.map((r) => r.stop()));
      // Close every socket before waiting: a send blocked on a full peer (high-water mark) then
      // rejects instead of waiting forever for an inbox that no longer reads.
      for (const channel of pulls) channel.close();
      for (const channel of pushes) channel.close();
      await Promise.allSettled([scheduler.done, dispatcher.done, ...executors.map((e) => e.done)]);
      await gateway.close();
      await counter?.close();
      offlineSize.stop();
      await offline.close();
      await campaigns.close();
      await followers.close();
      await attributes.close();
      await accounts.close();
      await access.close();
      await store.close();
    },
  };
}
