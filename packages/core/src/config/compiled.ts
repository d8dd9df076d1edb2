import type { ClickThroughPolicy, DefaultLimits } from '../account-quota/limits';
import type { AptaConfig } from '../apta/config';
import type { FrequencyPolicy } from '../frequency/policy';
import type {
  KafkaSaslConfig,
  MySqlTlsConfig,
  PresenceConfig,
  TlsFileConfig,
  ZooKeeperAuthConfig,
} from './connection-security';

/*
 * Herald's configuration, step three of three: the compiled config that
 * `compileConfig` gives from the options (options.ts), every default filled
 * and every duration a `...Ms` number. The tiers read only this.
 */
export type DeliveryConfig =
  | { kind: 'file' }
  | {
      kind: 'webhook';
      webhook: {
        url: string;
        timeoutMs: number;
        maxAttempts: number;
        retryDelayMs: number;
        headers: Record<string, string>;
        pacing: ChannelPacingConfig;
      };
    }
  | { kind: 'kafka'; kafka: KafkaDeliveryConfig }
  | { kind: 'zmq'; zmq: ZmqDeliveryConfig }
  | { kind: 'fcm'; fcm: FcmDeliveryConfig }
  | { kind: 'apns'; apns: ApnsDeliveryConfig };

/** `delivery.zmq`: a push service's ROUTER as the channel (docs/delivery.md, "The ZeroMQ push gateway"). */
export interface ZmqDeliveryConfig {
  /** tcp://host:port or ipc://path; inproc:// only with `curve` false. */
  endpoint: string;
  /** CURVE to the service; false only for local tests. */
  curve: boolean;
  /** The service's public key, Z85 (a `herald keys` .pub file); set when `curve`. */
  serverPublicKeyFile: string | null;
  /** The executor's own pair, {"publicKey","secretKey"} (a `herald keys` .key file); null: a fresh pair at each start. */
  keyPairFile: string | null;
  /** A request unanswered this long after it was handed to the gateway failed (UNAVAILABLE). */
  timeoutMs: number;
  /** Requests sent and not yet answered, at most, per executor process. */
  maxInFlight: number;
  maxAttempts: number;
  retryDelayMs: number;
  pacing: ChannelPacingConfig;
}

/** What both mobile-push channels share (docs/delivery.md, "FCM and APNs"). */
export interface PushChannelConfig {
  endpoint: string;
  caFile: string | null;
  concurrency: number;
  timeoutMs: number;
  maxAttempts: number;
  retryDelayMs: number;
  pacing: ChannelPacingConfig;
}

/** `delivery.fcm`: Firebase Cloud Messaging HTTP v1. The key file is read at start, by the production profile. */
export interface FcmDeliveryConfig extends PushChannelConfig {
  credentialsFile: string;
  projectId: string | null;
  tokenUrl: string;
}

/** `delivery.apns`: APNs with token-based (ES256 JWT) authentication. The key file is read at start. */
export interface ApnsDeliveryConfig extends PushChannelConfig {
  keyFile: string;
  keyId: string;
  teamId: string;
  topic: string;
  pushType: 'alert' | 'background';
}

/** `delivery.kafka`: a Kafka topic as the push channel (docs/delivery.md, "The Kafka topic"). */
export interface KafkaDeliveryConfig {
  brokers: string[];
  topic: string;
  clientId: string;
  /** A produce without every in-sync replica's acknowledgement after this long fails (UNAVAILABLE). */
  timeoutMs: number;
  /** Largest record value sent; a batch larger is split, a single recipient's record larger is refused. */
  maxRecordBytes: number;
  /** Records are keyed by `uin >>> keyShiftBits`: a consumer shards by uin range. */
  keyShiftBits: number;
  /** kafkajs's idempotent producer (one request in flight per broker). */
  idempotent: boolean;
  sasl: KafkaSaslConfig | null;
  tls: TlsFileConfig | null;
  maxAttempts: number;
  retryDelayMs: number;
  pacing: ChannelPacingConfig;
}

/**
 * A channel's pacing (docs/delivery.md, "Pacing by the channel's health"):
 * core ChannelPacing's options less the two the channel's own settings give
 * (maxAttempts: failures in a row that open the breaker; retryDelayMs: the
 * first failure's back-off), plus how long one batch waits at most.
 */
export interface ChannelPacingConfig {
  initialRate: number;
  minRate: number;
  maxRate: number;
  increasePerSecond: number;
  decreaseFactor: number;
  burstMs: number;
  cutSpacingMs: number;
  throttleDelayMs: number;
  latencyFloorMs: number;
  latencyRiseFactor: number;
  breakerOpenMs: number;
  maxHoldMs: number;
}

export interface FrequencyConfig {
  enabled: boolean;
  /** Compiled (and checked) whether enabled or not. */
  policy: FrequencyPolicy;
}

export type BandwidthTraffic = 'realtime' | 'normal' | 'storage';

export interface BandwidthConfig {
  enabled: boolean;
  script: string;
  kinds: Record<BandwidthTraffic, string>;
  /** Executor id -> its traffic; an executor not named carries normal traffic. */
  executors: Record<string, BandwidthTraffic>;
}

export interface ManagementConfig {
  endpoints: Record<string, string>;
  drainTimeoutMs: number;
  faults: boolean;
  /** Lowercase hex SHA-256 of the management token; null when the config names none (a production process then refuses to start). */
  tokenHash: string | null;
  /**
   * A file holding the management token itself: the interface processes
   * read it to ask the executors for their delivery records
   * (docs/recipient-truth.md); null: they do not ask.
   */
  tokenFile: string | null;
  allowRemote: boolean;
}

export interface AuthConfig {
  rateLimit: { perSecond: number; burst: number };
  tokenCacheMs: number;
  /** The Max-Age of a kept console session's cookie, ms (docs/security.md, "Console sessions"). */
  sessionMaxAgeMs: number;
  bootstrapAdminToken: string | null;
}

export interface AccountsConfig {
  defaultLimits: DefaultLimits;
  clickThrough: ClickThroughPolicy;
  utcOffsetMinutes: number;
  /** The followers-only accounts: their tasks get the follower check (docs/audience-sources.md). */
  followersOnly: readonly string[];
}

export interface AudiencesConfig {
  maxRunningJobs: number;
  jobRetentionMs: number;
  pageSize: number;
  followEvents: boolean;
  followerCopyThreshold: number;
}

export interface LoadConfig {
  reportIntervalMs: number;
  maxReportAgeMs: number;
  senderSlots: number;
  nicBytesPerSecond: number;
  memoryBytesPerRecipient: number;
  cpuMicrosPerRecipient: number;
  nicBytesPerRecipient: number;
  globalSpeedSharePercent: number;
}

export interface CampaignsConfig {
  misfireGraceMs: number;
  scanIntervalMs: number;
  minPeriodMs: number;
}

export interface InterfaceMember {
  id: string;
  /** Where this interface process binds its APTA membership socket, e.g. 'tcp://10.0.0.9:7901'. */
  membership: string;
}

export interface PresenceMember {
  id: string;
  /**
   * The host's shared online bitmap (docs/shared-bitmap.md): the agent writes it,
   * the executors listed here map it read-only. Put it on tmpfs, e.g.
   * '/dev/shm/herald-online.bitmap'.
   */
  bitmapFile: string;
  /** Ids of the executors on this agent's host: each executor belongs to exactly one agent. */
  executors: string[];
}

export interface TopologyMember {
  id: string;
  /** ZeroMQ endpoint this process binds its inbox to, e.g. 'tcp://10.0.0.5:7101'. */
  endpoint: string;
  /**
   * Where this process binds its APTA membership socket. Either every
   * scheduler, dispatcher and executor names one (APTA decides the ring of
   * schedulers, and membership changes move tasks) or none does (the ring is
   * the static list of schedulers).
   */
  membership?: string;
  /**
   * Executors only: a second inbox for real-time tasks' batches, so they do
   * not wait behind the normal batches queued in the inbox (docs/scheduling.md).
   * Without it real-time batches share the inbox.
   */
  realtimeEndpoint?: string;
  /**
   * Executors only: where this executor binds the inbox its peers tell of
   * their channel throttles (`channel.throttled`), so a 429 one executor gets
   * holds the others at once instead of each paying its own (docs/delivery.md,
   * "One budget per channel"). Its own socket: the batch inbox may hold a
   * whole broadcast's batches ahead of it. Without it this executor neither
   * relays nor hears throttles.
   */
  channelEndpoint?: string;
  /**
   * Schedulers only: a second inbox for commands and pre-processing results
   * (from interfaces and dispatchers), so they are not queued behind the
   * executors' progress reports (docs/scheduling.md). Without it they share the inbox.
   */
  controlEndpoint?: string;
}

export interface ProductionConfig {
  mysql: { url: string; database: string; poolSize: number; replyTimeoutMs: number; tls: MySqlTlsConfig | null };
  zookeeper: {
    connectionString: string;
    root: string;
    sessionTimeoutMs: number;
    connectTimeoutMs: number;
    auth: ZooKeeperAuthConfig | null;
  };
  kafka: {
    brokers: string[];
    clientId: string;
    topicPrefix: string;
    connectTimeoutMs: number;
    partitions: number;
    replicationFactor: number;
    sasl: KafkaSaslConfig | null;
    tls: TlsFileConfig | null;
  };
  curve: { keysDir: string };
  topology: {
    schedulers: TopologyMember[];
    dispatchers: TopologyMember[];
    executors: TopologyMember[];
    presence: PresenceMember[];
    interfaces: InterfaceMember[];
  };
  /** APTA's timers when the topology names membership endpoints; null: a static ring. */
  apta: AptaConfig | null;
}

export interface HeraldConfig {
  profile: 'embedded' | 'production';
  dataDir: string;
  uinSpaceBits: number;
  /** 2^uinSpaceBits: the first uin outside the space. */
  uinLimit: number;
  http: { host: string; port: number; uploadLimitBytes: number; shutdownGraceMs: number };
  tasks: {
    defaultTtlMs: number;
    maxTtlMs: number;
    maxContentChars: number;
    maxScheduleAheadMs: number;
    undoGraceMs: number;
  };
  scheduler: { id: string; slots: number; tickMs: number; unitStallMs: number };
  dispatcher: { batchSize: number; unitSize: number; filterWorkers: number };
  executor: { ids: string[]; bitmapWaitMs: number; maxLoginsPending: number };
  offline: { rangeBits: number; purgeIntervalMs: number; purgeMaxRecords: number };
  transport: { highWaterMark: number };
  delivery: DeliveryConfig;
  frequency: FrequencyConfig;
  management: ManagementConfig;
  bandwidth: BandwidthConfig;
  auth: AuthConfig;
  campaigns: CampaignsConfig;
  audiences: AudiencesConfig;
  accounts: AccountsConfig;
  load: LoadConfig;
  presence: PresenceConfig;
  /** Present exactly when profile is 'production'. */
  production: ProductionConfig | null;
}
