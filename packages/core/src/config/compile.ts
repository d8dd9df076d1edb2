import { ConfigError } from '../errors';
import { DEFAULTS, type HeraldConfig, type HeraldOptions } from './options';
import { compileAccounts } from './compile-accounts';
import { compileAudiences } from './compile-audiences';
import { compileAuth } from './compile-auth';
import { compileCampaigns } from './compile-campaigns';
import { compileDelivery } from './compile-delivery';
import { compileFrequency } from './compile-frequency';
import { compileLoad } from './compile-load';
import { compileManagement } from './compile-management';
import { compileBandwidth } from './compile-bandwidth';
import { compilePresence } from './compile-connection-security';
import { compileProduction } from './compile-production';
import { section } from './section';
import { checkKnownKeys, int, str } from './validate';

/**
 * Steps two and three: defaults, then validation. Throws ConfigError naming
 * the first bad setting, so a misconfigured process fails at start with one
 * clear line instead of misbehaving later.
 */
export function compileConfig(options: HeraldOptions = {}): HeraldConfig {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new ConfigError('(root)', 'must be an object');
  }
  checkKnownKeys('(root)', options, [
    'profile',
    'dataDir',
    'uinSpaceBits',
    'http',
    'tasks',
    'scheduler',
    'dispatcher',
    'executor',
    'offline',
    'transport',
    'mysql',
    'zookeeper',
    'kafka',
    'curve',
    'topology',
    'apta',
    'management',
    'bandwidth',
    'auth',
    'campaigns',
    'delivery',
    'frequency',
    'accounts',
    'audiences',
    'load',
    'presence',
  ]);
  const http = section(options, 'http', ['host', 'port', 'uploadLimitBytes', 'shutdownGraceMs']);
  const tasks = section(options, 'tasks', [
    'defaultTtlMs',
    'maxTtlMs',
    'maxContentChars',
    'maxScheduleAheadMs',
    'undoGraceMs',
  ]);
  const scheduler = section(options, 'scheduler', ['id', 'slots', 'tickMs', 'unitStallMs']);
  const dispatcher = section(options, 'dispatcher', ['batchSize', 'unitSize', 'filterWorkers']);
  const executor = section(options, 'executor', ['ids', 'bitmapWaitMs', 'maxLoginsPending']);
  const offline = section(options, 'offline', ['rangeBits', 'purgeIntervalMs', 'purgeMaxRecords']);
  const transport = section(options, 'transport', ['highWaterMark']);

  const profile = options.profile ?? DEFAULTS.profile;
  if (profile !== 'embedded' && profile !== 'production')
    throw new ConfigError('profile', `must be 'embedded' or 'production' (got ${JSON.stringify(profile)})`);
  const uinSpaceBits = int('uinSpaceBits', options.uinSpaceBits, DEFAULTS.uinSpaceBits, 1, 32);
  const ids = executor.ids ?? [...DEFAULTS.executor.ids];
  if (
    !Array.isArray(ids) ||
    ids.length === 0 ||
    ids.some((id) => typeof id !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(id))
  ) {
    throw new ConfigError('executor.ids', 'must be a non-empty list of ids made of letters, digits, _ . -');
  }
  if (new Set(ids).size !== ids.length) throw new ConfigError('executor.ids', 'must not repeat an id');

  const defaultTtlMs = int(
    'tasks.defaultTtlMs',
    tasks.defaultTtlMs,
    DEFAULTS.tasks.defaultTtlMs,
    1000,
    Number.MAX_SAFE_INTEGER,
  );
  const maxTtlMs = int('tasks.maxTtlMs', tasks.maxTtlMs, DEFAULTS.tasks.maxTtlMs, 1000, Number.MAX_SAFE_INTEGER);
  if (defaultTtlMs > maxTtlMs)
    throw new ConfigError('tasks.defaultTtlMs', `must not exceed tasks.maxTtlMs (${maxTtlMs})`);

  return {
    profile,
    dataDir: str('dataDir', options.dataDir, DEFAULTS.dataDir),
    uinSpaceBits,
    uinLimit: 2 ** uinSpaceBits,
    http: {
      host: str('http.host', http.host, DEFAULTS.http.host),
      port: int('http.port', http.port, DEFAULTS.http.port, 0, 65535),
      uploadLimitBytes: int(
        'http.uploadLimitBytes',
        http.uploadLimitBytes,
        DEFAULTS.http.uploadLimitBytes,
        32,
        Number.MAX_SAFE_INTEGER,
      ),
      shutdownGraceMs: int('http.shutdownGraceMs', http.shutdownGraceMs, DEFAULTS.http.shutdownGraceMs, 0, 600_000),
    },
    tasks: {
      defaultTtlMs,
      maxTtlMs,
      maxContentChars: int('tasks.maxContentChars', tasks.maxContentChars, DEFAULTS.tasks.maxContentChars, 1, 1 << 20),
      // An hour at most: a longer wait is a send time, which the request can say.
      undoGraceMs: int('tasks.undoGraceMs', tasks.undoGraceMs, DEFAULTS.tasks.undoGraceMs, 0, 3_600_000),
      // At least a minute, so "in a moment" is always schedulable; at most ten years, so sendAt plus a lifetime stays a date.
      maxScheduleAheadMs: int(
        'tasks.maxScheduleAheadMs',
        tasks.maxScheduleAheadMs,
        DEFAULTS.tasks.maxScheduleAheadMs,
        60_000,
        3650 * 86_400_000,
      ),
    },
    scheduler: {
      id: str('scheduler.id', scheduler.id, DEFAULTS.scheduler.id),
      slots: int('scheduler.slots', scheduler.slots, DEFAULTS.scheduler.slots, 1, 100_000),
      tickMs: int('scheduler.tickMs', scheduler.tickMs, DEFAULTS.scheduler.tickMs, 10, 3_600_000),
      unitStallMs: int('scheduler.unitStallMs', scheduler.unitStallMs, DEFAULTS.scheduler.unitStallMs, 100, 86_400_000),
    },
    dispatcher: {
      batchSize: int('dispatcher.batchSize', dispatcher.batchSize, DEFAULTS.dispatcher.batchSize, 1, 1 << 20),
      unitSize: int('dispatcher.unitSize', dispatcher.unitSize, DEFAULTS.dispatcher.unitSize, 1, 2 ** 40),
      filterWorkers: int(
        'dispatcher.filterWorkers',
        dispatcher.filterWorkers,
        DEFAULTS.dispatcher.filterWorkers,
        0,
        256,
      ),
    },
    executor: {
      ids: [...ids],
      bitmapWaitMs: int('executor.bitmapWaitMs', executor.bitmapWaitMs, DEFAULTS.executor.bitmapWaitMs, 0, 3_600_000),
      maxLoginsPending: int(
        'executor.maxLoginsPending',
        executor.maxLoginsPending,
        DEFAULTS.executor.maxLoginsPending,
        1,
        100_000_000,
      ),
    },
    offline: {
      rangeBits: int('offline.rangeBits', offline.rangeBits, DEFAULTS.offline.rangeBits, 8, 32),
      purgeIntervalMs: int(
        'offline.purgeIntervalMs',
        offline.purgeIntervalMs,
        DEFAULTS.offline.purgeIntervalMs,
        0,
        86_400_000,
      ),
      purgeMaxRecords: int(
        'offline.purgeMaxRecords',
        offline.purgeMaxRecords,
        DEFAULTS.offline.purgeMaxRecords,
        1,
        10_000_000,
      ),
    },
    transport: {
      highWaterMark: int(
        'transport.highWaterMark',
        transport.highWaterMark,
        DEFAULTS.transport.highWaterMark,
        1,
        1 << 20,
      ),
    },
    delivery: compileDelivery(options),
    frequency: compileFrequency(options),
    management: compileManagement(options),
    bandwidth: compileBandwidth(options),
    auth: compileAuth(options),
    campaigns: compileCampaigns(options),
    audiences: compileAudiences(options),
    accounts: compileAccounts(options),
    load: compileLoad(options),
    presence: compilePresence(options),
    production: profile === 'production' ? compileProduction(options) : null,
  };
}
