import type {
  AccessStore,
  AccountStore,
  AttributeIndex,
  CampaignStore,
  Clock,
  ConfirmedBatchLog,
  Coordinator,
  DeliveryGateway,
  DeliveryRecordLog,
  DeviceRegistry,
  EventBus,
  FollowerStore,
  FrequencyCounter,
  OfflineStore,
  TaskStore,
  UserAttributeLookup,
} from '@herald/core/ports';
import type { OnlineView } from '@herald/core/presence';
import type { FollowerCopies, ListRepository } from '@herald/audience';
import type { AudienceSourceDeps } from '@herald/interface';
import type { Resources } from './resources';

/**
 * Opens one adapter for the tier being built. What it opens it adds to
 * `scope`, so the tier closes it (and a start that fails half way closes it
 * too). An adapter the profile shares between the tiers of one process (the
 * embedded profile's LevelDB stores) is lent instead: not added to the scope,
 * closed by the profile.
 */
export type Open<T> = (scope: Resources) => Promise<T>;

/** What the dispatcher's follower check and targeting condition read (docs/architecture.md, "The filter chain"). */
export interface FilterAudiences {
  followers: FollowerStore;
  attributes: AttributeIndex;
  /** Local copies of big accounts' followers (with audiences.followerCopyThreshold). */
  followerCopies?: FollowerCopies;
}

/**
 * The adapters of one process: what a profile chooses. Every tier builder
 * takes the ones its tier uses, and only those are opened. A builder never
 * names an adapter package: LevelDB or MySQL, in-process or ZooKeeper,
 * Kafka or no bus are decided here, by the profile.
 */
export interface TierAdapters {
  clock: Clock;
  /** Recipient-list files (uploads, filtered lists, blacklists). */
  lists: ListRepository;
  taskStore: Open<TaskStore>;
  accessStore: Open<AccessStore>;
  accountStore: Open<AccountStore>;
  campaignStore: Open<CampaignStore>;
  /** The per-user daily counts (docs/frequency.md); opened only with frequency.enabled. */
  frequencyCounter: Open<FrequencyCounter>;
  /** The dispatcher's audience reads. */
  filterAudiences: Open<FilterAudiences>;
  /** The API's audience sources: the filter's reads and whatever else the profile serves (table sources, follow events). */
  apiAudiences: Open<AudienceSourceDeps & FilterAudiences>;
  /** Users' attributes for template tasks (docs/delivery.md). */
  userAttributes: Open<UserAttributeLookup>;
  coordinator: Open<Coordinator>;
  /**
   * The event bus: the controller's outbox relay, the executors' batch
   * reports, the presence topic. Absent in a profile without one (the outbox
   * is then not relayed and batches are not reported).
   */
  eventBus?: Open<EventBus>;
  /**
   * Whether a scheduler records unit progress in the coordinator first
   * (production: ZooKeeper, synced to the store by the controller) rather
   * than in the task store alone.
   */
  progressInCoordinator: boolean;
  /**
   * Per-recipient truth (docs/recipient-truth.md): executors record each
   * confirmed batch's online positions and each login walk's outcomes in it,
   * the API reads it to answer a recipient's fate. One store every tier of
   * the process reads, so only a profile whose tiers share a process has it
   * (embedded); absent, nothing is recorded and the API answers a reached
   * recipient's delivery as unknown.
   */
  deliveryRecords?: Open<DeliveryRecordLog>;
  /** The mobile-push device registry (docs/delivery.md, "Device registry"): the API's /api/v1/devices routes. Absent: not served. */
  deviceRegistry?: Open<DeviceRegistry>;
}

/** What one executor delivers with; a profile may share them between the executors of one process. */
export interface ExecutorAdapters {
  offline: Open<OfflineStore>;
  gateway: Open<DeliveryGateway>;
  online: Open<OnlineView>;
  /** The batches this executor confirmed, kept across restarts. Default: remembered in memory only. */
  confirmed?: Open<ConfirmedBatchLog>;
}
