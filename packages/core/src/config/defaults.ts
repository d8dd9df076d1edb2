/**
 * Herald's configuration, step two of three: the default of every option
 * (options.ts), which `compileConfig` fills in before it validates.
 */
export const DEFAULTS = {
  profile: 'embedded',
  dataDir: './herald-data',
  uinSpaceBits: 32,
  http: { host: '127.0.0.1', port: 8080, uploadLimitBytes: 8 * 2 ** 30, shutdownGraceMs: 10_000 },
  tasks: {
    defaultTtlMs: 7 * 86_400_000,
    maxTtlMs: 30 * 86_400_000,
    maxContentChars: 4096,
    maxScheduleAheadMs: 365 * 86_400_000,
    undoGraceMs: 10_000,
  },
  scheduler: { id: 'scheduler-1', slots: 4, tickMs: 1000, unitStallMs: 30_000 },
  dispatcher: { batchSize: 4096, unitSize: 1 << 20, filterWorkers: 0 },
  executor: { ids: ['executor-1'], bitmapWaitMs: 30_000 },
  offline: { rangeBits: 20, purgeIntervalMs: 10_000, purgeMaxRecords: 2000 },
  transport: { highWaterMark: 64 },
  mysql: { database: 'herald', poolSize: 10 },
  zookeeper: { root: '/herald', sessionTimeoutMs: 10_000, connectTimeoutMs: 10_000 },
  kafka: { clientId: 'herald', topicPrefix: '', connectTimeoutMs: 10_000, partitions: 3, replicationFactor: -1 },
  delivery: { webhook: { timeoutMs: 10_000, maxAttempts: 5, retryDelayMs: 200 } },
  management: { drainTimeoutMs: 60_000 },
  auth: { rateLimit: { perSecond: 100, burst: 200 }, tokenCacheMs: 5000 },
  campaigns: { misfireGraceMs: 60_000, scanIntervalMs: 5000, minPeriodMs: 3_600_000 },
  load: {
    reportIntervalMs: 1000,
    maxReportAgeMs: 3000,
    senderSlots: 4,
    nicBytesPerSecond: 125_000_000,
    memoryBytesPerRecipient: 64,
    cpuMicrosPerRecipient: 20,
    nicBytesPerRecipient: 512,
    globalSpeedSharePercent: 50,
  },
  audiences: { maxRunningJobs: 2, jobRetentionMs: 3_600_000, pageSize: 10_000, followerCopyThreshold: 10_000_000 },
  accounts: {
    defaultLimits: {
      dailyBroadcasts: 10_000,
      dailyRecipients: 1_000_000_000_000,
      minIntervalMs: 0,
      maxSpeed: 0,
      confirmAbove: 1_000_000,
      confirmWithinMs: 3_600_000,
    },
    clickThrough: { referenceRate: 0.05, minFactor: 0.5, maxFactor: 2 },
    utcOffsetMinutes: 0,
    followersOnly: [],
  },
} as const;
