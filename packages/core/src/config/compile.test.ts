import { ConfigError, HeraldError } from '../errors';
import { compileFrequencyPolicy } from '../frequency/policy';
import { compileConfig } from './compile';
import type { HeraldOptions } from './options';

const DAY = 86_400_000;

/** Written out from the option docs in options.ts, not read from DEFAULTS. */
const EXPECTED_DEFAULTS = {
  profile: 'embedded',
  dataDir: './herald-data',
  uinSpaceBits: 32,
  uinLimit: 2 ** 32,
  http: { host: '127.0.0.1', port: 8080, uploadLimitBytes: 8 * 1024 ** 3, shutdownGraceMs: 10_000 },
  tasks: {
    defaultTtlMs: 7 * DAY,
    maxTtlMs: 30 * DAY,
    maxContentChars: 4096,
    maxScheduleAheadMs: 365 * DAY,
    undoGraceMs: 10_000,
  },
  scheduler: { id: 'scheduler-1', slots: 4, tickMs: 1000, unitStallMs: 30_000 },
  dispatcher: { batchSize: 16_384, unitSize: 1_048_576, filterWorkers: 0 },
  executor: { ids: ['executor-1'], bitmapWaitMs: 30_000, maxLoginsPending: 100_000 },
  offline: { rangeBits: 20, purgeIntervalMs: 10_000, purgeMaxRecords: 2000 },
  transport: { highWaterMark: 64 },
  management: {
    endpoints: {},
    drainTimeoutMs: 60_000,
    faults: false,
    tokenHash: null,
    tokenFile: null,
    allowRemote: false,
  },
  bandwidth: {
    enabled: false,
    script: 'cgroup/run-in-class.sh',
    kinds: { realtime: 'realtime', normal: 'bulk', storage: 'storage' },
    executors: {},
  },
  auth: {
    rateLimit: { perSecond: 100, burst: 200 },
    tokenCacheMs: 5000,
    sessionMaxAgeMs: 604_800_000,
    bootstrapAdminToken: null,
  },
  campaigns: { misfireGraceMs: 60_000, scanIntervalMs: 5000, minPeriodMs: 3_600_000 },
  audiences: {
    maxRunningJobs: 2,
    jobRetentionMs: 3_600_000,
    pageSize: 10_000,
    followEvents: false,
    followerCopyThreshold: 10_000_000,
  },
  accounts: {
    defaultLimits: {
      dailyBroadcasts: 10_000,
      dailyRecipients: 10 ** 12,
      minIntervalMs: 0,
      maxSpeed: 0,
      confirmAbove: 1_000_000,
      confirmWithinMs: 3_600_000,
    },
    clickThrough: { referenceRate: 0.05, minFactor: 0.5, maxFactor: 2 },
    utcOffsetMinutes: 0,
    followersOnly: [],
  },
  delivery: { kind: 'file' },
  frequency: { enabled: false, policy: compileFrequencyPolicy() },
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
  presence: { hmacKeyFile: null },
  production: null,
};

function configError(options: unknown): ConfigError {
  try {
    compileConfig(options as HeraldOptions);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect(error).toBeInstanceOf(HeraldError);
    return error as ConfigError;
  }
  throw new Error(`compileConfig accepted ${JSON.stringify(options)}`);
}

const PRODUCTION = {
  profile: 'production',
  mysql: { url: 'mysql://herald@db:3306' },
  zookeeper: { connectionString: 'zk1:2181,zk2:2181' },
  kafka: { brokers: ['k1:9092', 'k2:9092'] },
  curve: { keysDir: '/etc/herald/keys' },
  topology: {
    schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://10.0.0.1:7101' }],
    dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://10.0.0.2:7201' }],
    executors: [{ id: 'executor-1', endpoint: 'tcp://10.0.0.3:7301' }],
    presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/herald-online.bitmap', executors: ['executor-1'] }],
  },
} as const;
const APTA = {
  ...PRODUCTION,
  apta: { helloIntervalMs: 100 },
  topology: {
    ...PRODUCTION.topology,
    schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://10.0.0.1:7101', membership: 'tcp://10.0.0.1:7901' }],
    dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://10.0.0.2:7201', membership: 'tcp://10.0.0.2:7901' }],
    executors: [{ id: 'executor-1', endpoint: 'tcp://10.0.0.3:7301', membership: 'tcp://10.0.0.3:7901' }],
    interfaces: [{ id: 'interface-1', membership: 'tcp://10.0.0.9:7901' }],
  },
} as const;
const withApta = (topology: object, apta: unknown = APTA.apta) => ({
  ...APTA,
  apta,
  topology: { ...APTA.topology, ...topology },
});
const EXECUTORS = [
  { id: 'e1', endpoint: 'tcp://h:1' },
  { id: 'e2', endpoint: 'tcp://h:2' },
];
const withPresence = (presence: unknown, executors: unknown = EXECUTORS) => ({
  ...PRODUCTION,
  topology: { ...PRODUCTION.topology, executors, presence },
});

describe('compileConfig, production profile', () => {
  it('compiles the servers and topology with their defaults', () => {
    const config = compileConfig(PRODUCTION as unknown as HeraldOptions);
    expect(config.profile).toBe('production');
    expect(config.production).toEqual({
      mysql: { url: 'mysql://herald@db:3306', database: 'herald', poolSize: 10, replyTimeoutMs: 60_000, tls: null },
      zookeeper: {
        connectionString: 'zk1:2181,zk2:2181',
        root: '/herald',
        sessionTimeoutMs: 10_000,
        connectTimeoutMs: 10_000,
        auth: null,
      },
      kafka: {
        brokers: ['k1:9092', 'k2:9092'],
        clientId: 'herald',
        topicPrefix: '',
        connectTimeoutMs: 10_000,
        partitions: 3,
        replicationFactor: -1,
        sasl: null,
        tls: null,
      },
      curve: { keysDir: '/etc/herald/keys' },
      topology: { ...PRODUCTION.topology, interfaces: [] },
      apta: null,
    });
  });

  it('turns APTA on when the schedulers name membership endpoints, with its timers', () => {
    const config = compileConfig(APTA as unknown as HeraldOptions);
    expect(config.production!.apta).toMatchObject({
      helloIntervalMs: 100,
      deadIntervalMs: 4000,
      silencePeriodMs: 12_000,
    });
    expect(config.production!.topology.interfaces).toEqual([{ id: 'interface-1', membership: 'tcp://10.0.0.9:7901' }]);
    expect(config.production!.topology.schedulers[0]!.membership).toBe('tcp://10.0.0.1:7901');
  });

  it('compiles the management endpoints, with the drain timeout and faults off by default', () => {
    expect(compileConfig({}).management).toEqual({
      endpoints: {},
      drainTimeoutMs: 60_000,
      faults: false,
      tokenHash: null,
      tokenFile: null,
      allowRemote: false,
    });
    const config = compileConfig({
      ...PRODUCTION,
      management: {
        endpoints: { 'scheduler-1': '127.0.0.1:9101', 'controller-1': 'localhost:9201' },
        drainTimeoutMs: 5000,
        faults: true,
      },
    } as unknown as HeraldOptions);
    expect(config.management).toEqual({
      endpoints: { 'scheduler-1': '127.0.0.1:9101', 'controller-1': 'localhost:9201' },
      drainTimeoutMs: 5000,
      faults: true,
      tokenHash: null,
      tokenFile: null,
      allowRemote: false,
    });
    expect(config.scheduler.unitStallMs).toBe(30_000);
  });

  it("takes the management token file, a path, for the interfaces to read the executors' records", () => {
    expect(compileConfig({ management: { tokenFile: '/etc/herald/management.token' } }).management.tokenFile).toBe(
      '/etc/herald/management.token',
    );
    for (const tokenFile of ['', 42])
      expect(() => compileConfig({ management: { tokenFile } } as unknown as HeraldOptions)).toThrow(
        /management\.tokenFile/,
      );
  });

  it('takes the management token hash (lowercased) and endpoints beyond loopback only with allowRemote', () => {
    const hash = 'AB'.repeat(32);
    expect(compileConfig({ management: { tokenHash: hash } }).management.tokenHash).toBe('ab'.repeat(32));
    expect(() => compileConfig({ management: { endpoints: { 'scheduler-1': '10.0.1.11:9101' } } })).toThrow(
      /management\.endpoints\.scheduler-1.*allowRemote/,
    );
    expect(
      compileConfig({ management: { endpoints: { 'scheduler-1': '10.0.1.11:9101' }, allowRemote: true } }).management
        .endpoints,
    ).toEqual({ 'scheduler-1': '10.0.1.11:9101' });
  });

  it("takes a scheduler's control inbox endpoint", () => {
    const schedulers = [{ id: 'scheduler-1', endpoint: 'tcp://h:1', controlEndpoint: 'tcp://h:9' }];
    expect(
      compileConfig({ ...PRODUCTION, topology: { ...PRODUCTION.topology, schedulers } } as unknown as HeraldOptions)
        .production!.topology.schedulers,
    ).toEqual(schedulers);
  });

  it("takes an executor's real-time and channel inbox endpoints", () => {
    const executors = [
      { id: 'e1', endpoint: 'tcp://h:1', realtimeEndpoint: 'tcp://h:5', channelEndpoint: 'tcp://h:6' },
      { id: 'e2', endpoint: 'tcp://h:2', channelEndpoint: 'tcp://h:7' },
    ];
    const config = compileConfig(
      withPresence([{ id: 'p', bitmapFile: '/a', executors: ['e1', 'e2'] }], executors) as unknown as HeraldOptions,
    );
    expect(config.production!.topology.executors).toEqual(executors);
  });

  it('ignores the production sections in the embedded profile', () => {
    expect(compileConfig({ ...PRODUCTION, profile: 'embedded' } as unknown as HeraldOptions).production).toBeNull();
  });
});

describe('compileConfig', () => {
  it('fills every default when given nothing', () => {
    expect(compileConfig()).toEqual(EXPECTED_DEFAULTS);
    expect(compileConfig({})).toEqual(EXPECTED_DEFAULTS);
  });

  it('keeps the defaults of a section for the fields an operator leaves out', () => {
    const config = compileConfig({ http: { port: 9090 }, scheduler: { slots: 16 }, tasks: {} });
    expect(config.http).toEqual({ ...EXPECTED_DEFAULTS.http, port: 9090 });
    expect(config.scheduler).toEqual({ ...EXPECTED_DEFAULTS.scheduler, slots: 16 });
    expect(config.tasks).toEqual(EXPECTED_DEFAULTS.tasks);
  });

  it('takes every option it is given', () => {
    const options: HeraldOptions = {
      profile: 'embedded',
      dataDir: '/var/lib/herald',
      uinSpaceBits: 24,
      http: { host: '0.0.0.0', port: 0, uploadLimitBytes: 1 << 20, shutdownGraceMs: 0 },
      tasks: { defaultTtlMs: DAY, maxTtlMs: 2 * DAY, maxContentChars: 100, maxScheduleAheadMs: 60_000, undoGraceMs: 0 },
      scheduler: { id: 'sched-a', slots: 1, tickMs: 10, unitStallMs: 100 },
      dispatcher: { batchSize: 1, unitSize: 10, filterWorkers: 2 },
      executor: { ids: ['e1', 'e_2', 'e.3', 'e-4'], bitmapWaitMs: 0, maxLoginsPending: 7 },
      offline: { rangeBits: 8, purgeIntervalMs: 0, purgeMaxRecords: 1 },
      transport: { highWaterMark: 1 },
      management: {
        endpoints: { 'sched-a': '127.0.0.1:9101' },
        drainTimeoutMs: 0,
        faults: true,
        tokenHash: 'ab'.repeat(32),
        tokenFile: '/etc/herald/management.token',
        allowRemote: true,
      },
      bandwidth: {
        enabled: true,
        script: '/opt/herald/run.sh',
        kinds: { realtime: 'rt', normal: 'bulk', storage: 'disk' },
        executors: { e1: 'realtime' },
      },
      auth: {
        rateLimit: { perSecond: 0.5, burst: 1 },
        tokenCacheMs: 0,
        sessionMaxAgeMs: 60_000,
        bootstrapAdminToken: `hrd_boot_${'s'.repeat(43)}`,
      },
      campaigns: { misfireGraceMs: 1000, scanIntervalMs: 100, minPeriodMs: 1000 },
      audiences: {
        maxRunningJobs: 64,
        jobRetentionMs: 1000,
        pageSize: 1,
        followEvents: true,
        followerCopyThreshold: 0,
      },
      accounts: {
        defaultLimits: {
          dailyBroadcasts: 1,
          dailyRecipients: 0,
          minIntervalMs: 14_400_000,
          maxSpeed: 50_000,
          confirmAbove: 0,
          confirmWithinMs: 86_400_000,
        },
        clickThrough: { referenceRate: 1, minFactor: 0.1, maxFactor: 100 },
        utcOffsetMinutes: 480,
        followersOnly: ['news', 'club_7'],
      },
      delivery: {
        kind: 'webhook',
        webhook: {
          url: 'https://push.example/in',
          timeoutMs: 100,
          maxAttempts: 1,
          retryDelayMs: 0,
          headers: { 'x-herald': '1' },
          pacing: {
            initialRate: 500,
            minRate: 10,
            maxRate: 20_000,
            increasePerSecond: 50,
            decreaseFactor: 0.5,
            burstMs: 0,
            cutSpacingMs: 0,
            throttleDelayMs: 0,
            latencyFloorMs: 0,
            latencyRiseFactor: 2,
            breakerOpenMs: 10,
            maxHoldMs: 10,
          },
        },
      },
      load: {
        reportIntervalMs: 100,
        maxReportAgeMs: 100,
        senderSlots: 1,
        nicBytesPerSecond: 1,
        memoryBytesPerRecipient: 1,
        cpuMicrosPerRecipient: 1,
        nicBytesPerRecipient: 1,
        globalSpeedSharePercent: 100,
      },
      presence: { hmacKeyFile: '/etc/herald/presence.key' },
    };
    // frequency compiles into a policy, not back into its options: compile-frequency.test.ts.
    const { uinLimit, production, frequency, ...rest } = compileConfig(options);
    expect(frequency.enabled).toBe(false);
    expect(production).toBeNull();
    expect(uinLimit).toBe(2 ** 24);
    expect(rest).toEqual(options);
  });

  it('accepts the bounds of each range', () => {
    expect(compileConfig({ uinSpaceBits: 1 }).uinLimit).toBe(2);
    expect(compileConfig({ uinSpaceBits: 32 }).uinLimit).toBe(2 ** 32);
    expect(compileConfig({ http: { port: 65535 } }).http.port).toBe(65535);
    expect(compileConfig({ offline: { rangeBits: 32 } }).offline.rangeBits).toBe(32);
    expect(compileConfig({ tasks: { defaultTtlMs: 5 * DAY, maxTtlMs: 5 * DAY } }).tasks.defaultTtlMs).toBe(5 * DAY);
  });

  it('copies the executor ids, so neither the options nor the defaults are shared', () => {
    const ids = ['a', 'b'];
    const config = compileConfig({ executor: { ids } });
    ids.push('c');
    expect(config.executor.ids).toEqual(['a', 'b']);
    compileConfig().executor.ids.push('mutated');
    expect(compileConfig().executor.ids).toEqual(['executor-1']);
  });

  it.each<[string, unknown, string]>([
    ['uinSpaceBits 33', { uinSpaceBits: 33 }, 'uinSpaceBits'],
    ['uinSpaceBits 0', { uinSpaceBits: 0 }, 'uinSpaceBits'],
    ['uinSpaceBits 1.5', { uinSpaceBits: 1.5 }, 'uinSpaceBits'],
    ['uinSpaceBits "32"', { uinSpaceBits: '32' }, 'uinSpaceBits'],
    ['http.port -1', { http: { port: -1 } }, 'http.port'],
    ['http.port 65536', { http: { port: 65536 } }, 'http.port'],
    ['http.port NaN', { http: { port: Number.NaN } }, 'http.port'],
    ['http.host empty', { http: { host: '' } }, 'http.host'],
    ['http.uploadLimitBytes 31', { http: { uploadLimitBytes: 31 } }, 'http.uploadLimitBytes'],
    ['http.shutdownGraceMs -1', { http: { shutdownGraceMs: -1 } }, 'http.shutdownGraceMs'],
    ['http.shutdownGraceMs over 10 minutes', { http: { shutdownGraceMs: 600_001 } }, 'http.shutdownGraceMs'],
    ['scheduler.slots 0', { scheduler: { slots: 0 } }, 'scheduler.slots'],
    ['scheduler.tickMs 9', { scheduler: { tickMs: 9 } }, 'scheduler.tickMs'],
    ['scheduler.id 7', { scheduler: { id: 7 } }, 'scheduler.id'],
    ['executor.ids []', { executor: { ids: [] } }, 'executor.ids'],
    ['executor.ids not a list', { executor: { ids: 'executor-1' } }, 'executor.ids'],
    ['executor.ids with a space', { executor: { ids: ['a b'] } }, 'executor.ids'],
    ['executor.ids with a number', { executor: { ids: [1] } }, 'executor.ids'],
    ['executor.ids repeated', { executor: { ids: ['x', 'x'] } }, 'executor.ids'],
    ['executor.bitmapWaitMs negative', { executor: { bitmapWaitMs: -1 } }, 'executor.bitmapWaitMs'],
    ['executor.maxLoginsPending 0', { executor: { maxLoginsPending: 0 } }, 'executor.maxLoginsPending'],
    ['executor.maxLoginsPending 2.5', { executor: { maxLoginsPending: 2.5 } }, 'executor.maxLoginsPending'],
    ['executor.maxLoginsPending "1e5"', { executor: { maxLoginsPending: '1e5' } }, 'executor.maxLoginsPending'],
    [
      'executor.maxLoginsPending over 10^8',
      { executor: { maxLoginsPending: 100_000_001 } },
      'executor.maxLoginsPending',
    ],
    ['dispatcher.batchSize 0', { dispatcher: { batchSize: 0 } }, 'dispatcher.batchSize'],
    ['dispatcher.unitSize 0', { dispatcher: { unitSize: 0 } }, 'dispatcher.unitSize'],
    ['dispatcher.filterWorkers -1', { dispatcher: { filterWorkers: -1 } }, 'dispatcher.filterWorkers'],
    ['dispatcher.filterWorkers 1.5', { dispatcher: { filterWorkers: 1.5 } }, 'dispatcher.filterWorkers'],
    ['offline.rangeBits 7', { offline: { rangeBits: 7 } }, 'offline.rangeBits'],
    ['offline.rangeBits 33', { offline: { rangeBits: 33 } }, 'offline.rangeBits'],
    ['offline.purgeIntervalMs -1', { offline: { purgeIntervalMs: -1 } }, 'offline.purgeIntervalMs'],
    ['offline.purgeMaxRecords 0', { offline: { purgeMaxRecords: 0 } }, 'offline.purgeMaxRecords'],
    ['transport.highWaterMark 0', { transport: { highWaterMark: 0 } }, 'transport.highWaterMark'],
    ['tasks.maxContentChars 0', { tasks: { maxContentChars: 0 } }, 'tasks.maxContentChars'],
    ['tasks.undoGraceMs -1', { tasks: { undoGraceMs: -1 } }, 'tasks.undoGraceMs'],
    ['tasks.undoGraceMs over an hour', { tasks: { undoGraceMs: 3_600_001 } }, 'tasks.undoGraceMs'],
    ['tasks.undoGraceMs 1.5', { tasks: { undoGraceMs: 1.5 } }, 'tasks.undoGraceMs'],
    ['campaigns.minPeriodMs 999', { campaigns: { minPeriodMs: 999 } }, 'campaigns.minPeriodMs'],
    ['campaigns.minPeriodMs over a day', { campaigns: { minPeriodMs: DAY + 1 } }, 'campaigns.minPeriodMs'],
    [
      'accounts.defaultLimits.confirmAbove -1',
      { accounts: { defaultLimits: { confirmAbove: -1 } } },
      'accounts.defaultLimits.confirmAbove',
    ],
    [
      'accounts.defaultLimits.confirmWithinMs over a year',
      { accounts: { defaultLimits: { confirmWithinMs: 31_536_000_001 } } },
      'accounts.defaultLimits.confirmWithinMs',
    ],
    ['tasks.maxScheduleAheadMs under a minute', { tasks: { maxScheduleAheadMs: 59_999 } }, 'tasks.maxScheduleAheadMs'],
    [
      'tasks.maxScheduleAheadMs over ten years',
      { tasks: { maxScheduleAheadMs: 3651 * DAY } },
      'tasks.maxScheduleAheadMs',
    ],
    ['tasks.maxScheduleAheadMs a string', { tasks: { maxScheduleAheadMs: '365d' } }, 'tasks.maxScheduleAheadMs'],
    ['tasks.defaultTtlMs 999', { tasks: { defaultTtlMs: 999 } }, 'tasks.defaultTtlMs'],
    ['campaigns.misfireGraceMs 999', { campaigns: { misfireGraceMs: 999 } }, 'campaigns.misfireGraceMs'],
    ['campaigns.scanIntervalMs "5s"', { campaigns: { scanIntervalMs: '5s' } }, 'campaigns.scanIntervalMs'],
    ['campaigns unknown key', { campaigns: { graceMs: 1000 } }, 'campaigns.graceMs'],
    ['audiences.maxRunningJobs 0', { audiences: { maxRunningJobs: 0 } }, 'audiences.maxRunningJobs'],
    ['audiences.jobRetentionMs 999', { audiences: { jobRetentionMs: 999 } }, 'audiences.jobRetentionMs'],
    ['audiences.pageSize 2^20+1', { audiences: { pageSize: 2 ** 20 + 1 } }, 'audiences.pageSize'],
    ['audiences unknown key', { audiences: { jobs: 1 } }, 'audiences.jobs'],
    ['audiences.followEvents "yes"', { audiences: { followEvents: 'yes' } }, 'audiences.followEvents'],
    [
      'audiences.followerCopyThreshold -1',
      { audiences: { followerCopyThreshold: -1 } },
      'audiences.followerCopyThreshold',
    ],
    ['load not an object', { load: 3 }, 'load'],
    ['load unknown key', { load: { speed: 1 } }, 'load.speed'],
    [
      'load.maxReportAgeMs below the report interval',
      { load: { reportIntervalMs: 2000, maxReportAgeMs: 1999 } },
      'load.maxReportAgeMs',
    ],
    ['load.cpuMicrosPerRecipient 0', { load: { cpuMicrosPerRecipient: 0 } }, 'load.cpuMicrosPerRecipient'],
    [
      'load.globalSpeedSharePercent over 100',
      { load: { globalSpeedSharePercent: 101 } },
      'load.globalSpeedSharePercent',
    ],
    ['load.senderSlots 0', { load: { senderSlots: 0 } }, 'load.senderSlots'],
    [
      'accounts.defaultLimits.dailyBroadcasts -1',
      { accounts: { defaultLimits: { dailyBroadcasts: -1 } } },
      'accounts.defaultLimits.dailyBroadcasts',
    ],
    [
      'accounts.defaultLimits.dailyRecipients over 10^12',
      { accounts: { defaultLimits: { dailyRecipients: 10 ** 12 + 1 } } },
      'accounts.defaultLimits.dailyRecipients',
    ],
    [
      'accounts.defaultLimits.minIntervalMs over a day',
      { accounts: { defaultLimits: { minIntervalMs: DAY + 1 } } },
      'accounts.defaultLimits.minIntervalMs',
    ],
    [
      'accounts.defaultLimits.maxSpeed over 10^8',
      { accounts: { defaultLimits: { maxSpeed: 100_000_001 } } },
      'accounts.defaultLimits.maxSpeed',
    ],
    ['accounts.followersOnly not a list', { accounts: { followersOnly: 'news' } }, 'accounts.followersOnly'],
    [
      'accounts.followersOnly a bad account id',
      { accounts: { followersOnly: ['news', 'Bad-Id'] } },
      'accounts.followersOnly[1]',
    ],
    [
      'accounts.followersOnly a repeated account id',
      { accounts: { followersOnly: ['news', 'news'] } },
      'accounts.followersOnly',
    ],
    [
      'accounts.defaultLimits unknown key',
      { accounts: { defaultLimits: { weekly: 1 } } },
      'accounts.defaultLimits.weekly',
    ],
    ['accounts.defaultLimits not an object', { accounts: { defaultLimits: 5 } }, 'accounts.defaultLimits'],
    [
      'accounts.clickThrough.referenceRate 0',
      { accounts: { clickThrough: { referenceRate: 0 } } },
      'accounts.clickThrough.referenceRate',
    ],
    [
      'accounts.clickThrough.minFactor 1.5',
      { accounts: { clickThrough: { minFactor: 1.5 } } },
      'accounts.clickThrough.minFactor',
    ],
    [
      'accounts.clickThrough.maxFactor 0.9',
      { accounts: { clickThrough: { maxFactor: 0.9 } } },
      'accounts.clickThrough.maxFactor',
    ],
    ['accounts.utcOffsetMinutes 900', { accounts: { utcOffsetMinutes: 900 } }, 'accounts.utcOffsetMinutes'],
    ['accounts unknown key', { accounts: { quota: 1 } }, 'accounts.quota'],
    ['tasks.defaultTtlMs over the default maxTtlMs', { tasks: { defaultTtlMs: 31 * DAY } }, 'tasks.defaultTtlMs'],
    ['tasks.defaultTtlMs > tasks.maxTtlMs', { tasks: { defaultTtlMs: 2 * DAY, maxTtlMs: DAY } }, 'tasks.defaultTtlMs'],
    ['profile staging', { profile: 'staging' }, 'profile'],
    ['production without mysql.url', { ...PRODUCTION, mysql: {} }, 'mysql.url'],
    ['production with an http mysql.url', { ...PRODUCTION, mysql: { url: 'http://db:3306' } }, 'mysql.url'],
    [
      'production with a bad mysql.database',
      { ...PRODUCTION, mysql: { url: 'mysql://db', database: 'a;drop' } },
      'mysql.database',
    ],
    [
      'production with a mysql.replyTimeoutMs under 100 ms',
      { ...PRODUCTION, mysql: { url: 'mysql://db', replyTimeoutMs: 50 } },
      'mysql.replyTimeoutMs',
    ],
    ['production without zookeeper', { ...PRODUCTION, zookeeper: undefined }, 'zookeeper.connectionString'],
    [
      'production with a relative zookeeper.root',
      { ...PRODUCTION, zookeeper: { connectionString: 'zk:2181', root: 'herald' } },
      'zookeeper.root',
    ],
    ['production without kafka.brokers', { ...PRODUCTION, kafka: {} }, 'kafka.brokers'],
    ['production with a portless broker', { ...PRODUCTION, kafka: { brokers: ['k1'] } }, 'kafka.brokers'],
    ['production without curve.keysDir', { ...PRODUCTION, curve: {} }, 'curve.keysDir'],
    [
      'production without schedulers',
      { ...PRODUCTION, topology: { ...PRODUCTION.topology, schedulers: [] } },
      'topology.schedulers',
    ],
    [
      'production with a non-tcp endpoint',
      { ...PRODUCTION, topology: { ...PRODUCTION.topology, executors: [{ id: 'e1', endpoint: 'ipc:///tmp/x' }] } },
      'topology.executors[0].endpoint',
    ],
    ['production without presence agents', withPresence(undefined), 'topology.presence'],
    [
      'APTA with a dispatcher that has no membership endpoint',
      withApta({ dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://h:1' }] }),
      'topology.dispatchers[0].membership',
    ],
    ['APTA without interfaces', withApta({ interfaces: undefined }), 'topology.interfaces'],
    [
      'APTA with a membership endpoint equal to the inbox',
      withApta({ executors: [{ id: 'executor-1', endpoint: 'tcp://h:1', membership: 'tcp://h:1' }] }),
      'topology.executors[0].membership',
    ],
    [
      'APTA with a bad interface endpoint',
      withApta({ interfaces: [{ id: 'interface-1', membership: 'ipc:///x' }] }),
      'topology.interfaces[0].membership',
    ],
    [
      'APTA with a dead interval under two Hellos',
      withApta({}, { helloIntervalMs: 100, deadIntervalMs: 150 }),
      'apta.deadIntervalMs',
    ],
    ['apta timers without membership endpoints', { ...PRODUCTION, apta: { helloIntervalMs: 100 } }, 'apta'],
    [
      'interfaces without membership endpoints',
      { ...PRODUCTION, topology: { ...PRODUCTION.topology, interfaces: [] } },
      'topology.interfaces',
    ],
    [
      'production with a relative bitmapFile',
      withPresence([{ id: 'p', bitmapFile: 'online.bitmap', executors: ['e1', 'e2'] }]),
      'topology.presence[0].bitmapFile',
    ],
    [
      'production with a presence agent naming an unknown executor',
      withPresence([{ id: 'p', bitmapFile: '/b', executors: ['e1', 'e2', 'e9'] }]),
      'topology.presence[0].executors',
    ],
    [
      'production with an executor under two agents',
      withPresence([
        { id: 'p', bitmapFile: '/a', executors: ['e1', 'e2'] },
        { id: 'q', bitmapFile: '/b', executors: ['e2'] },
      ]),
      'topology.presence[1].executors',
    ],
    [
      'production with an executor under no agent',
      withPresence([{ id: 'p', bitmapFile: '/a', executors: ['e1'] }]),
      'topology.presence',
    ],
    [
      'production with an unknown presence key',
      withPresence([{ id: 'p', bitmapFile: '/a', executors: ['e1', 'e2'], endpoint: 'tcp://h:3' }]),
      'topology.presence[0].endpoint',
    ],
    [
      'a controlEndpoint on a dispatcher',
      {
        ...PRODUCTION,
        topology: {
          ...PRODUCTION.topology,
          dispatchers: [{ id: 'd', endpoint: 'tcp://h:1', controlEndpoint: 'tcp://h:2' }],
        },
      },
      'topology.dispatchers[0].controlEndpoint',
    ],
    [
      'a scheduler controlEndpoint equal to its inbox',
      {
        ...PRODUCTION,
        topology: {
          ...PRODUCTION.topology,
          schedulers: [{ id: 's', endpoint: 'tcp://h:1', controlEndpoint: 'tcp://h:1' }],
        },
      },
      'topology.schedulers[0].controlEndpoint',
    ],
    [
      'a realtimeEndpoint on a scheduler',
      {
        ...PRODUCTION,
        topology: {
          ...PRODUCTION.topology,
          schedulers: [{ id: 's', endpoint: 'tcp://h:1', realtimeEndpoint: 'tcp://h:2' }],
        },
      },
      'topology.schedulers[0].realtimeEndpoint',
    ],
    [
      'an executor realtimeEndpoint equal to its inbox',
      withPresence(
        [{ id: 'p', bitmapFile: '/a', executors: ['e1', 'e2'] }],
        [
          { id: 'e1', endpoint: 'tcp://h:1', realtimeEndpoint: 'tcp://h:1' },
          { id: 'e2', endpoint: 'tcp://h:2' },
        ],
      ),
      'topology.executors[0].realtimeEndpoint',
    ],
    [
      'an executor channelEndpoint equal to its realtimeEndpoint',
      withPresence(
        [{ id: 'p', bitmapFile: '/a', executors: ['e1', 'e2'] }],
        [
          { id: 'e1', endpoint: 'tcp://h:1', realtimeEndpoint: 'tcp://h:3', channelEndpoint: 'tcp://h:3' },
          { id: 'e2', endpoint: 'tcp://h:2' },
        ],
      ),
      'topology.executors[0].channelEndpoint',
    ],
    [
      'a channelEndpoint on a dispatcher',
      {
        ...PRODUCTION,
        topology: {
          ...PRODUCTION.topology,
          dispatchers: [{ id: 'd', endpoint: 'tcp://h:1', channelEndpoint: 'tcp://h:2' }],
        },
      },
      'topology.dispatchers[0].channelEndpoint',
    ],
    [
      'a non-tcp executor realtimeEndpoint',
      withPresence(
        [{ id: 'p', bitmapFile: '/a', executors: ['e1', 'e2'] }],
        [
          { id: 'e1', endpoint: 'tcp://h:1', realtimeEndpoint: 'ipc:///x' },
          { id: 'e2', endpoint: 'tcp://h:2' },
        ],
      ),
      'topology.executors[0].realtimeEndpoint',
    ],
    [
      'production with a repeated id',
      {
        ...PRODUCTION,
        topology: {
          ...PRODUCTION.topology,
          dispatchers: [
            { id: 'd', endpoint: 'tcp://h:1' },
            { id: 'd', endpoint: 'tcp://h:2' },
          ],
        },
      },
      'topology.dispatchers[1].id',
    ],
    ['scheduler.unitStallMs 99', { scheduler: { unitStallMs: 99 } }, 'scheduler.unitStallMs'],
    ['management a list', { management: [] }, 'management'],
    ['management.endpoints a list', { management: { endpoints: ['127.0.0.1:1'] } }, 'management.endpoints'],
    [
      'a management endpoint without a port',
      { management: { endpoints: { 'scheduler-1': '127.0.0.1' } } },
      'management.endpoints.scheduler-1',
    ],
    [
      'a management endpoint as a URL',
      { management: { endpoints: { 'scheduler-1': 'http://127.0.0.1:9' } } },
      'management.endpoints.scheduler-1',
    ],
    [
      'a management endpoint port over 65535',
      { management: { endpoints: { 'scheduler-1': '127.0.0.1:70000' } } },
      'management.endpoints.scheduler-1',
    ],
    [
      'a management endpoint id with a space',
      { management: { endpoints: { 'a b': '127.0.0.1:9' } } },
      'management.endpoints.a b',
    ],
    [
      'two processes on one management address',
      { management: { endpoints: { a: '127.0.0.1:9', b: '127.0.0.1:9' } } },
      'management.endpoints.b',
    ],
    ['management.faults a string', { management: { faults: 'yes' } }, 'management.faults'],
    ['management.drainTimeoutMs negative', { management: { drainTimeoutMs: -1 } }, 'management.drainTimeoutMs'],
    ['an unknown management key', { management: { port: 1 } }, 'management.port'],
    [
      'management.tokenHash not 64 hex digits',
      { management: { tokenHash: 'hmt_the-plain-token' } },
      'management.tokenHash',
    ],
    ['management.allowRemote a string', { management: { allowRemote: 'yes' } }, 'management.allowRemote'],
    ['dataDir empty', { dataDir: '' }, 'dataDir'],
    ['unknown key foo', { foo: 1 }, 'foo'],
    ['unknown nested key http.bogus', { http: { bogus: true } }, 'http.bogus'],
    ['unknown nested key executor.count', { executor: { count: 2 } }, 'executor.count'],
    ['http null', { http: null }, 'http'],
    ['scheduler a list', { scheduler: [] }, 'scheduler'],
    ['tasks a number', { tasks: 5 }, 'tasks'],
    ['root null', null, '(root)'],
    ['root a list', [], '(root)'],
    ['root a string', 'config', '(root)'],
  ])('rejects %s with a ConfigError naming it', (_name, options, setting) => {
    const error = configError(options);
    expect(error.setting).toBe(setting);
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.retriable).toBe(false);
    expect(error.details).toEqual({ setting });
    expect(error.message).toContain(setting);
  });
});
