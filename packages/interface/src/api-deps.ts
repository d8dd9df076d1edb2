import type {
  AccessStore,
  AccountStore,
  CampaignStore,
  Clock,
  DeliveryRecordLog,
  DeviceRegistry,
  Logger,
  Meter,
  TaskStore,
} from '@herald/core/ports';
import type { HashRing } from '@herald/core/ring';
import type { HeraldConfig } from '@herald/core/config';
import type { HostLoad } from '@herald/core/dispatch';
import type { ListRepository } from '@herald/audience';
import type { PushChannel } from '@herald/transport';
import type { AudienceSourceDeps } from './audience-jobs';

export interface ApiDeps {
  config: HeraldConfig;
  store: TaskStore;
  /** API tokens and the audit log (docs/api.md, "Authentication"). */
  access: AccessStore;
  lists: ListRepository;
  /**
   * Per-recipient delivery records (docs/recipient-truth.md), read by GET
   * /api/v1/tasks/:id/recipients/:uin and purged by DELETE
   * /api/v1/tasks/:id/records. Without it a recipient in the filtered list is
   * answered `unknown`, with the reason, and a purge 404 NOT_FOUND.
   */
  deliveryRecords?: DeliveryRecordLog;
  /** Cron campaigns (docs/campaigns.md). Without it the /api/v1/campaigns routes are not served. */
  campaigns?: CampaignStore;
  /** B-side controls (docs/account-quotas.md): quotas checked at task creation and the /api/v1/accounts/:id routes. Without it neither. */
  accounts?: AccountStore;
  /** Audience sources (docs/audience-sources.md): without it the /api/v1/audiences, follows and user-attributes routes are not served. */
  audiences?: AudienceSourceDeps;
  /** task.submitted and task.command go to the scheduler. */
  toScheduler: PushChannel;
  clock: Clock;
  logger: Logger;
  /** The list ids blacklists are stored under (the dispatcher reads the same ids). */
  blacklistIds: { global: string; forAccount(accountId: string): string };
  /** The membership this process follows, for GET /api/v1/cluster. Default: the one scheduler of config.scheduler.id (embedded). */
  cluster?: () => ClusterMembership;
  /**
   * The executors' latest load reports, as a dispatcher in this process holds
   * them (the embedded profile), for GET /api/v1/cluster's `hosts`. Absent in
   * production: interface processes hear no load reports (a dispatcher's
   * management status shows its own).
   */
  hostLoads?: () => { report: HostLoad; ageMs: number }[];
  /**
   * The task's real filter chain over a list, creating nothing: what a dry run
   * (POST /api/v1/tasks?dryRun=true) reports as kept and removed. Each profile
   * wires the sources its dispatchers filter with. Without it a dry run
   * answers `kept` and `removed` null.
   */
  previewRecipients?: (request: {
    accountId: string;
    listId: string;
    contentCrc: number;
    targeting?: string;
    sendAt: number;
  }) => Promise<{
    listed: number;
    kept: number;
    removed: Partial<Record<string, number>>;
    sampled?: number;
  }>;
  /**
   * The paced delivery channels of this process, for the admin's
   * /api/v1/channels routes (docs/delivery.md, "Limits at run time"): the
   * embedded profile's. Absent in production: the interface process sends
   * nothing, so it lists no channel and a change answers 404.
   */
  channels?: ChannelControl;
  /** The mobile-push device registry (docs/delivery.md, "Device registry"): without it the /api/v1/devices routes are not served. */
  devices?: DeviceRegistry;
  /** Counters of refused requests and audit failures; default: none. */
  meter?: Meter;
  /** Prometheus exposition for GET /metrics, when a registry is wired. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}

/** What a process knows of the cluster's membership (APTA's view, or a static ring). */
export interface ClusterMembership {
  apta: boolean;
  /** The answering process's id and APTA state, when it is a member. */
  self: { id: string; state: string } | undefined;
  /** The allocation ring it routes by. */
  ring: HashRing;
  /** Every member it knows, itself included. `lastHeardAt` in clock ms, when known. */
  members: { id: string; state: string; takesWork: boolean; lastHeardAt?: number }[];
}

/**
 * A paced delivery channel as the API shows it: its whole rate bounds
 * (`maxRate` is its limit), this process's rate now, and how many processes
 * share the budget (docs/delivery.md, "One budget per channel").
 */
export interface ChannelLimitsView {
  channel: string;
  minRate: number;
  maxRate: number;
  rate: number;
  senders: number;
}

/** Reads and changes the paced channels' limits at run time. */
export interface ChannelControl {
  list(): ChannelLimitsView[];
  /** Undefined: no such channel here. Throws a ValidationError for bounds out of order. */
  setLimits(channel: string, limits: { minRate?: number; maxRate?: number }): ChannelLimitsView | undefined;
}
