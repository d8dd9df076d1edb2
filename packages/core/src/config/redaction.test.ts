import { compileConfig } from './compile';
import type { HeraldOptions } from './options';

/**
 * Secrets never echoed by a configuration error (docs/security.md): every
 * setting of a complete production config, in turn, gets a value carrying a
 * credential (a URL with a password, an API token, a management token, a
 * bearer header, a JSON secret field) in every shape that can fail (the
 * string itself, inside an object, inside a list, as an unknown key). Whatever
 * compileConfig throws must not hold the secret, in its message, its details
 * or its JSON.
 */
const PASSWORD = 'S3cretPW';
const TOKEN_SECRET = 'Tk9secretTk9secretTk9secretTk9secret12345';
const SECRETS = [
  `mysqlx://herald:${PASSWORD}@db.internal:3306`,
  `mysql://herald:${PASSWORD}@db.internal:3306/herald`,
  `https://user:${PASSWORD}@push.example/in?token=${PASSWORD}`,
  `http://push.example/in?password=${PASSWORD}&x=1`,
  `hrd_boot_${TOKEN_SECRET}`,
  `hmt_${TOKEN_SECRET}`,
  `Bearer ${TOKEN_SECRET}`,
  `{"password": "${PASSWORD}", "secretKey": "${TOKEN_SECRET}"}`,
];
const LEAKS = [PASSWORD, TOKEN_SECRET];

/** Every option set, production sections included: it compiles as it is. */
const FULL: Record<string, unknown> = {
  profile: 'production',
  dataDir: '/var/lib/herald',
  uinSpaceBits: 24,
  http: { host: '0.0.0.0', port: 8080, uploadLimitBytes: 1 << 20 },
  tasks: { defaultTtlMs: 86_400_000, maxTtlMs: 172_800_000, maxContentChars: 100 },
  scheduler: { id: 'scheduler-1', slots: 1, tickMs: 10, unitStallMs: 100 },
  dispatcher: { batchSize: 1, unitSize: 10, filterWorkers: 2 },
  executor: { ids: ['executor-1'], bitmapWaitMs: 0 },
  offline: { rangeBits: 8 },
  transport: { highWaterMark: 1 },
  mysql: { url: 'mysql://herald:pw@db:3306', database: 'herald', poolSize: 4 },
  zookeeper: { connectionString: 'zk1:2181', root: '/herald', sessionTimeoutMs: 4000, connectTimeoutMs: 1000 },
  kafka: { brokers: ['k1:9092'], clientId: 'herald', topicPrefix: 'p.', connectTimeoutMs: 1000 },
  curve: { keysDir: '/etc/herald/keys' },
  topology: {
    schedulers: [
      {
        id: 'scheduler-1',
        endpoint: 'tcp://10.0.0.1:7101',
        membership: 'tcp://10.0.0.1:7102',
        controlEndpoint: 'tcp://10.0.0.1:7103',
      },
    ],
    dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://10.0.0.2:7201', membership: 'tcp://10.0.0.2:7202' }],
    executors: [
      {
        id: 'executor-1',
        endpoint: 'tcp://10.0.0.3:7301',
        membership: 'tcp://10.0.0.3:7302',
        realtimeEndpoint: 'tcp://10.0.0.3:7303',
      },
    ],
    presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/herald-online.bitmap', executors: ['executor-1'] }],
    interfaces: [{ id: 'interface-1', membership: 'tcp://10.0.0.4:7402' }],
  },
  apta: { helloIntervalMs: 100, deadIntervalMs: 600, silencePeriodMs: 600 },
  management: {
    endpoints: { 'scheduler-1': '127.0.0.1:9101' },
    drainTimeoutMs: 0,
    faults: false,
    tokenHash: 'ab'.repeat(32),
    tokenFile: '/etc/herald/management.token',
    allowRemote: false,
  },
  bandwidth: {
    enabled: true,
    script: '/opt/herald/run.sh',
    kinds: { realtime: 'rt', normal: 'bulk', storage: 'disk' },
    executors: { 'executor-1': 'realtime' },
  },
  auth: {
    rateLimit: { perSecond: 1, burst: 1 },
    tokenCacheMs: 0,
    sessionMaxAgeMs: 60_000,
    bootstrapAdminToken: `hrd_boot_${'s'.repeat(43)}`,
  },
  campaigns: { misfireGraceMs: 1000, scanIntervalMs: 100 },
  audiences: { maxRunningJobs: 2, jobRetentionMs: 1000, pageSize: 1, followEvents: true, followerCopyThreshold: 0 },
  accounts: {
    defaultLimits: { dailyBroadcasts: 1, dailyRecipients: 0, minIntervalMs: 0, maxSpeed: 0 },
    clickThrough: { referenceRate: 1, minFactor: 0.1, maxFactor: 100 },
    utcOffsetMinutes: 0,
    followersOnly: ['news'],
  },
  delivery: {
    kind: 'webhook',
    webhook: {
      url: 'https://push.example/in',
      timeoutMs: 100,
      maxAttempts: 1,
      retryDelayMs: 0,
      headers: { authorization: 'Bearer x' },
    },
  },
  frequency: {
    enabled: true,
    dailyLimit: 6,
    windows: [
      { fromMinute: 0, toMinute: 720, slots: 2 },
      { fromMinute: 720, toMinute: 1440, slots: 4 },
    ],
    utcOffsetMinutes: 0,
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
};

type Path = (string | number)[];

/** Every path to a value in `value`, objects and lists included (the root is []). */
function paths(value: unknown, at: Path = []): Path[] {
  const out: Path[] = [at];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (value !== null && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

function withValue(path: Path, value: unknown): unknown {
  const copy = structuredClone(FULL) as Record<string | number, unknown>;
  if (path.length === 0) return value;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return copy;
}

/** What compileConfig threw, as every form it can be shown in; '' when it compiled. */
function shown(options: unknown): string {
  try {
    compileConfig(options as HeraldOptions);
    return '';
  } catch (error) {
    const e = error as Error & { details?: unknown; setting?: unknown };
    return [e.message, String(e), JSON.stringify(e), JSON.stringify(e.details), String(e.setting), e.stack].join('\n');
  }
}

describe('configuration errors never echo a secret', () => {
  it('compiles the complete config it starts from', () => {
    expect(shown(FULL)).toBe('');
  });

  it('redacts every secret fed through every setting, in every shape', () => {
    const leaked: string[] = [];
    let refused = 0;
    for (const path of paths(FULL)) {
      for (const secret of SECRETS) {
        const isObject = (() => {
          const v = path.reduce<unknown>((node, step) => (node as Record<string | number, unknown>)[step], FULL);
          return v !== null && typeof v === 'object' && !Array.isArray(v);
        })();
        const shapes: unknown[] = [secret, { nested: secret }, [secret], { [secret]: 1 }];
        if (isObject) shapes.push({ ...(withValue([], undefined) as object), [secret]: secret });
        for (const shape of shapes) {
          const text = shown(withValue(path, shape));
          if (text !== '') refused++;
          for (const leak of LEAKS)
            if (text.includes(leak))
              leaked.push(`${path.join('.') || '(root)'} <- ${JSON.stringify(shape)}: ${text.split('\n')[0]}`);
        }
      }
    }
    expect(leaked).toEqual([]);
    // The sweep really went through the failing paths: most shapes are refused somewhere.
    expect(refused).toBeGreaterThan(1000);
  });

  it("shows the issue's malformed mysql.url without its password", () => {
    expect(shown(withValue(['mysql', 'url'], `mysqlx://herald:${PASSWORD}@db.internal:3306`))).toMatch(
      /config mysql\.url: must be a mysql:\/\/ URL \(got "mysqlx:\/\/herald:\*\*\*@db\.internal:3306"\)/,
    );
  });
});
