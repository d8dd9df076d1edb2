import type { AptaOptions } from '../apta/config';
import type { FrequencyOptions } from '../frequency/policy';
import type {
  KafkaSaslOptions,
  MySqlTlsOptions,
  PresenceOptions,
  TlsFileOptions,
  ZooKeeperAuthOptions,
} from './connection-security';
import type { InterfaceMember, PresenceMember, TopologyMember } from './compiled';
import type { DeliveryOptions } from './options-delivery';

/**
 * Herald's configuration, step one of three: the documented options an
 * operator writes (every field optional). `compileConfig` fills the defaults
 * and validates, giving a `HeraldConfig` whose durations are `...Ms` numbers.
 * docs/configuration.md lists the same options for operators.
 */
export interface HeraldOptions {
  /**
   * 'embedded': every tier in one process, LevelDB stores, ZeroMQ inproc.
   * 'production': one process per tier (`herald start <tier>`), MySQL, ZooKeeper,
   * Kafka, ZeroMQ over tcp with CURVE; needs mysql, zookeeper, kafka, curve, topology.
   * Default 'embedded'.
   */
  profile?: 'embedded' | 'production';
  /** Where every store, list file and delivery file lives. Default './herald-data'. */
  dataDir?: string;
  /** Uins lie in [0, 2^uinSpaceBits). 1..32, default 32 (the 512 MiB online bitmap). */
  uinSpaceBits?: number;
  http?: {
    /** Default '127.0.0.1'. */
    host?: string;
    /** Default 8080; 0 picks a free port. */
    port?: number;
    /** Largest accepted recipient-list upload in bytes. Default 8 GiB. */
    uploadLimitBytes?: number;
    /**
     * How long stopping the API waits for the requests in progress before it
     * closes every connection left (a stalled upload, a slow reader). 0..600000, default 10000.
     */
    shutdownGraceMs?: number;
  };
  tasks?: {
    /** Lifetime of a task (and its offline entries) when the request names none. Default 7 days. */
    defaultTtlMs?: number;
    /** Longest lifetime a request may ask for. Default 30 days. */
    maxTtlMs?: number;
    /** Largest content body in characters. Default 4096. */
    maxContentChars?: number;
    /**
     * The undo window: a task created to start now (no sendAt) waits this long
     * in SCHEDULED, where a cancel stops it with nothing sent. 0..3600000, default 10000; 0: none.
     */
    undoGraceMs?: number;
    /** Farthest ahead a task's sendAt may be, ms from now. Default 365 days. */
    maxScheduleAheadMs?: number;
  };
  scheduler?: {
    /** This scheduler's member id on the ring. Default 'scheduler-1'. */
    id?: string;
    /** Tasks sending at once (executor slots). Default 4. */
    slots?: number;
    /** How often scheduled tasks are checked for their send time, ms. Default 1000. */
    tickMs?: number;
    /**
     * A running unit that reports no progress for this long is run again from
     * its checkpoint (its dispatcher or executor died or restarted, or a message
     * was lost with it). Default 30000.
     */
    unitStallMs?: number;
  };
  dispatcher?: {
    /** Uins per batch message to an executor. Default 4096. */
    batchSize?: number;
    /** Recipients per execution unit. Default 1,048,576. */
    unitSize?: number;
    /**
     * Worker threads the filter chain's in-memory links (dedupe, blacklist,
     * no-resend) run in, each over one range of values, for lists of at least 2^20
     * recipients (docs/architecture.md, "The filter chain"). 0: the machine's
     * cores; 1: the dispatcher's own thread. Default 0.
     */
    filterWorkers?: number;
  };
  executor?: {
    /** Executor ids in the embedded profile; units are spread across them. Default ['executor-1']. */
    ids?: string[];
    /** Production: how long an executor waits at start for its host's presence agent to create the online bitmap, ms. Default 30000. */
    bitmapWaitMs?: number;
    /**
     * Production: users whose offline lists wait to be walked at login, at
     * most, per executor. A login storm (a presence rebuild hands every online
     * user over again) past it drops users from the queue: their entries stay
     * and go at their next login. 1..10^8, default 100000 (about 1 MB).
     */
    maxLoginsPending?: number;
  };
  offline?: {
    /** Uins per offline-list range: 2^rangeBits. A login reads one range's index. 8..32, default 20. */
    rangeBits?: number;
    /**
     * How often each offline store is swept for expired tasks' entries, ms
     * (docs/delivery.md, "Expiry and purge"); 0 turns the sweep off. 0..86400000, default 10000.
     */
    purgeIntervalMs?: number;
    /** The most records (and acknowledgements) one sweep removes: the purge's rate bound. 1..10^7, default 2000. */
    purgeMaxRecords?: number;
  };
  transport?: {
    /** ZeroMQ high-water mark (messages) on every socket: the backpressure bound. Default 64. */
    highWaterMark?: number;
  };
  mysql?: {
    /** e.g. 'mysql://herald:secret@db.example:3306'. Required in production. */
    url?: string;
    /** Default 'herald'. */
    database?: string;
    /** Connections per process. Default 10. */
    poolSize?: number;
    /**
     * How long a request waits for the server's first byte of answer before
     * its connection is dropped as dead and the call fails UNAVAILABLE
     * (retriable). Above the slowest statement and innodb_lock_wait_timeout.
     * Default 60000.
     */
    replyTimeoutMs?: number;
    /** TLS to MySQL (docs/security-connections.md); present means on. Default off. */
    tls?: MySqlTlsOptions;
  };
  zookeeper?: {
    /** e.g. 'zk1:2181,zk2:2181,zk3:2181'. Required in production. */
    connectionString?: string;
    /** Namespace of this cluster. Default '/herald'. */
    root?: string;
    /** Default 10000. */
    sessionTimeoutMs?: number;
    /** How long start waits for a first connection. Default 10000. */
    connectTimeoutMs?: number;
    /** Digest authentication and creator-only ACLs on Herald's znodes (docs/security-connections.md). Default off; production should set it. */
    auth?: ZooKeeperAuthOptions;
  };
  kafka?: {
    /** e.g. ['k1:9092', 'k2:9092']. Required in production. */
    brokers?: string[];
    /** Default 'herald'. */
    clientId?: string;
    /** Prepended to every topic name. Default ''. */
    topicPrefix?: string;
    /** Default 10000. */
    connectTimeoutMs?: number;
    /** Partitions of each topic Herald creates (where the brokers let clients create topics), 1-10000. Default 3. */
    partitions?: number;
    /** Replication factor of each topic Herald creates, 1-32, or -1 for the brokers' default. Default -1. */
    replicationFactor?: number;
    /** SASL authentication to the brokers (docs/security-connections.md). Default none. */
    sasl?: KafkaSaslOptions;
    /** TLS to the brokers; present means on. Default off. */
    tls?: TlsFileOptions;
  };
  /** The presence agents (docs/presence.md); production only: the embedded profile has no presence topic. */
  presence?: PresenceOptions;
  curve?: {
    /** Directory of CURVE keys made by `herald keys` (<id>.key per process, <id>.pub allowed). Required in production. */
    keysDir?: string;
  };
  /** Where each process of the production profile listens. Required in production. */
  topology?: {
    schedulers?: TopologyMember[];
    dispatchers?: TopologyMember[];
    executors?: TopologyMember[];
    /** One presence agent per host, naming the executors on its host. Required in production. */
    presence?: PresenceMember[];
    /**
     * The interface processes, with their APTA membership endpoints. Needed
     * when APTA runs (schedulers name `membership` endpoints): interfaces route
     * tasks by the ring APTA agrees on. docs/apta.md.
     */
    interfaces?: InterfaceMember[];
  };
  /** APTA timers (docs/apta.md); used when the schedulers name membership endpoints. */
  apta?: AptaOptions;
  /** Access to the HTTP API: tokens, rate limits (docs/api.md "Authentication", docs/configuration.md). */
  auth?: {
    rateLimit?: {
      /** Requests per second one token may make, sustained; 0 turns limiting off. Default 100. */
      perSecond?: number;
      /** Requests one token may make at once after a quiet spell. Default 200. */
      burst?: number;
    };
    /**
     * How long an interface process trusts a token it verified before asking
     * the store again, ms; a revocation made through another process takes
     * effect there within this bound. 0: ask on every request. Default 5000.
     */
    tokenCacheMs?: number;
    /**
     * The longest a console session kept with "keep me signed in" lasts, ms:
     * the Max-Age of its cookie. A session not kept ends when the browser
     * closes. Default 7 days; at most 30 days.
     */
    sessionMaxAgeMs?: number;
    /**
     * An admin token (hrd_<id>_<secret>) stored, hashed, at start when no token
     * has its id: how the first admin comes to exist without the CLI. The CLI
     * takes it from the environment variable HERALD_ADMIN_TOKEN. Default none.
     */
    bootstrapAdminToken?: string;
  };
  /** Cron campaigns, fired by the elected controller (docs/campaigns.md). */
  campaigns?: {
    /**
     * How late a campaign's firing may still happen: the latest scheduled time
     * fires if now - scheduledAt is below this, else it is recorded as missed
     * (the misfire policy). 1000..86400000, default 60000.
     */
    misfireGraceMs?: number;
    /** How often the controller re-reads the campaigns (new, changed, due), ms. 100..3600000, default 5000. */
    scanIntervalMs?: number;
    /** The shortest gap a campaign's cron may leave between two firings, ms. 1000..86400000, default 3600000. */
    minPeriodMs?: number;
  };
  /** Audience sources: lists built from followers, a targeting query or a MySQL table (docs/audience-sources.md). */
  audiences?: {
    /** Audience jobs one interface process runs at once; more answer 503 UNAVAILABLE (retriable). 1..64, default 2. */
    maxRunningJobs?: number;
    /** How long a finished job (done, failed, cancelled) stays readable at GET /api/v1/audiences/:id, ms. 1000..604800000, default 3600000. */
    jobRetentionMs?: number;
    /** Uins a source reads per page (keyset page, targeting batch). 1..1048576, default 10000. */
    pageSize?: number;
    /**
     * Production: the interface processes consume the `herald.follows` topic
     * (consumer group herald-followers) and apply each follow/unfollow to the
     * followers table. Off when another system keeps that table. Default false.
     */
    followEvents?: boolean;
    /**
     * An account whose followers job reads at least this many keeps a local
     * copy of them (<dataDir>/follower-copies), validated by sampling before
     * each use (docs/audience-sources.md, "Local copies"). 0: never.
     * 0..4294967296, default 10000000.
     */
    followerCopyThreshold?: number;
  };
  /** B-side controls: each account's daily quotas and frequency, scaled by its last click-through rate (docs/account-quotas.md). */
  accounts?: {
    /**
     * The limits of an account without its own (PUT /api/v1/accounts/:id/limits
     * overrides them field by field). Generous by default: they stop a runaway
     * script, not a real account; set the product's policy here.
     */
    defaultLimits?: {
      /** Broadcasts whose send time falls on one local day. 0..1000000, default 10000. */
      dailyBroadcasts?: number;
      /** Recipients (list sizes) summed over those broadcasts. 0..10^12, default 10^12. */
      dailyRecipients?: number;
      /** Least time between the send times of two broadcasts of one account, ms. 0..86400000, default 0 (none). */
      minIntervalMs?: number;
      /** The fastest a task may ask to be sent, recipients per second. 0..10^8, default 0: accounts may not set a speed. */
      maxSpeed?: number;
      /** A broadcast to more recipients than this that starts within confirmWithinMs needs `"confirm": <count>`. 0..10^12, default 1000000. */
      confirmAbove?: number;
      /** How soon a broadcast must start to need that confirmation, ms. 0..31536000000, default 3600000. */
      confirmWithinMs?: number;
    };
    /** How the click-through rate of an account's last broadcast scales its limits: factor = clamp(rate / referenceRate, minFactor, maxFactor). */
    clickThrough?: {
      /** The rate at which the limits are as configured. (0, 1], default 0.05. */
      referenceRate?: number;
      /** The smallest factor. (0, 1], default 0.5. */
      minFactor?: number;
      /** The largest factor. 1..100, default 2. */
      maxFactor?: number;
    };
    /** Where the quotas' day starts: a fixed offset from UTC in minutes (480 for UTC+8), -720..840, default 0. */
    utcOffsetMinutes?: number;
    /**
     * Accounts whose broadcasts reach only their followers: for their tasks
     * the dispatcher's follower check removes everyone else (`not_follower`).
     * Distinct account ids, at most 10000; default none.
     */
    followersOnly?: string[];
  };
  /** Where executors push deliveries (docs/delivery.md). */
  delivery?: DeliveryOptions;
  /**
   * Per-user daily frequency control (docs/frequency.md): at most `dailyLimit`
   * broadcasts a user a day, released at pseudo-random times inside
   * competition windows. The policy's fields are FrequencyOptions'.
   */
  frequency?: FrequencyOptions & {
    /**
     * Runs the frequency filter in the dispatchers and the check at login
     * delivery, and counts deliveries. Off by default: with it on, a task
     * reaches a user only once a slot of the user's day is released, so what
     * a broadcast reaches depends on the time of day (docs/frequency.md).
     * Default false.
     */
    enabled?: boolean;
  };
  /**
   * Bandwidth isolation (cgroup/README.md, docs/configuration.md): production
   * executor processes start inside the cgroup of their traffic kind through
   * cgroup/run-in-class.sh, so tc's htb class of that kind caps their NIC use.
   */
  bandwidth?: {
    /** Default false: executors start as they are. */
    enabled?: boolean;
    /** The run-in-class.sh to start through. Default "cgroup/run-in-class.sh" (relative to the working directory). */
    script?: string;
    /** Traffic -> the class (a kind in cgroup/classes.conf) it runs in. Defaults: realtime -> "realtime", normal -> "bulk", storage -> "storage". */
    kinds?: { realtime?: string; normal?: string; storage?: string };
    /** Executor id -> the traffic it carries (realtime, normal or storage). Default normal. */
    executors?: Record<string, string>;
  };
  /** Management endpoints for `herald admin` and Prometheus (docs/operations.md); both profiles accept it, production uses it. */
  management?: {
    /** Process id -> "host:port" of its management listener (plain HTTP: bind it to loopback or a private network). */
    endpoints?: Record<string, string>;
    /** How long a drain may wait for its work to be handed off or finished before the process exits anyway. Default 60000. */
    drainTimeoutMs?: number;
    /** Serves the fault-injection routes (traffic cut) for tests and chaos runs. Never in production. Default false. */
    faults?: boolean;
    /**
     * The cluster's management credential: the SHA-256 (64 hex digits) of the
     * bearer token every management route requires (`herald admin credential`
     * makes one). Required to start a production process (docs/security.md).
     */
    tokenHash?: string;
    /** Lets an endpoint listen on an address other than loopback (a private network Prometheus scrapes). Default false. */
    allowRemote?: boolean;
    /**
     * The file holding the management token (whose SHA-256 is tokenHash), for
     * the interface processes of the production profile: they ask each
     * executor's management endpoint for its delivery records
     * (docs/recipient-truth.md). Unset: a reached recipient's delivery is
     * answered unknown there. Default none.
     */
    tokenFile?: string;
  };
  /**
   * Load-aware dispatch (docs/scheduling.md "Load-aware dispatch"): what each
   * executor reports about its host, and how a dispatcher turns a task's size
   * and speed into needs and places its units.
   */
  load?: {
    /** Executors: how often each reports its host's load to the dispatchers, ms. Default 1000. */
    reportIntervalMs?: number;
    /** Dispatchers: a report older than this is ignored (its host is not planned on), ms. Default 3000. */
    maxReportAgeMs?: number;
    /** Executors: units one executor counts as running at once at most (its sender slots). Default 4. */
    senderSlots?: number;
    /** Executors: what the host's NIC carries at most, bytes per second. Default 125,000,000 (1 Gbit/s). */
    nicBytesPerSecond?: number;
    /** Memory a task takes per recipient on the host sending it, bytes. Default 64. */
    memoryBytesPerRecipient?: number;
    /** CPU time a recipient takes to send, microseconds. Default 20. */
    cpuMicrosPerRecipient?: number;
    /** NIC bytes a recipient takes to send (message, headers, acknowledgement). Default 512. */
    nicBytesPerRecipient?: number;
    /** A task whose account may not set its speed sends at this share of the cluster's spare capacity, percent. Default 50. */
    globalSpeedSharePercent?: number;
  };
}

export type * from './compiled';
export { DEFAULTS } from './defaults';
export type { DeliveryOptions, PushChannelOptions } from './options-delivery';
