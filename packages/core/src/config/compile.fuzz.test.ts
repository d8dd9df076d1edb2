/**
 * Fuzz tests (fast-check) of configuration: compileConfig takes an operator's
 * JSON file, so for any JSON value, and for any mutation of a valid embedded
 * or production config, it returns a config or throws ConfigError (never a
 * TypeError from a missing check); valid settings come back as given.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). A failure prints the
 * property's `seed` and `path`; replay exactly that case by passing them to
 * the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { ConfigError } from '../errors';
import { compileConfig } from './compile';
import type { HeraldConfig, HeraldOptions } from './options';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

const PRODUCTION = {
  profile: 'production',
  mysql: { url: 'mysql://herald@db:3306', database: 'herald', poolSize: 4 },
  zookeeper: { connectionString: 'zk1:2181', root: '/herald', sessionTimeoutMs: 10_000 },
  kafka: { brokers: ['k1:9092'], clientId: 'herald', topicPrefix: 'h.' },
  curve: { keysDir: '/etc/herald/keys' },
  topology: {
    schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://h1:7101' }],
    dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://h2:7201' }],
    executors: [
      { id: 'executor-1', endpoint: 'tcp://h3:7301' },
      { id: 'executor-2', endpoint: 'tcp://h3:7302' },
    ],
    presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/herald.bitmap', executors: ['executor-1', 'executor-2'] }],
  },
};
const WITH_APTA = {
  ...PRODUCTION,
  apta: { helloIntervalMs: 100, deadIntervalMs: 400 },
  topology: {
    schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://h1:7101', membership: 'tcp://h1:7901' }],
    dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://h2:7201', membership: 'tcp://h2:7901' }],
    executors: [{ id: 'executor-1', endpoint: 'tcp://h3:7301', membership: 'tcp://h3:7901' }],
    presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/herald.bitmap', executors: ['executor-1'] }],
    interfaces: [{ id: 'interface-1', membership: 'tcp://h9:7901' }],
  },
};
const EMBEDDED = {
  profile: 'embedded',
  dataDir: '/var/lib/herald',
  uinSpaceBits: 24,
  http: { host: '0.0.0.0', port: 8080, uploadLimitBytes: 1 << 20 },
  tasks: { defaultTtlMs: 60_000, maxTtlMs: 120_000, maxContentChars: 100 },
  scheduler: { id: 's', slots: 2, tickMs: 50 },
  dispatcher: { batchSize: 16, unitSize: 64 },
  executor: { ids: ['e1', 'e2'], bitmapWaitMs: 0 },
  offline: { rangeBits: 8 },
  transport: { highWaterMark: 4 },
  frequency: {
    enabled: true,
    dailyLimit: 3,
    windows: [
      { fromMinute: 0, toMinute: 720, slots: 1 },
      { fromMinute: 720, toMinute: 1440, slots: 2 },
    ],
    utcOffsetMinutes: 480,
  },
};
const VALID = [EMBEDDED, PRODUCTION, WITH_APTA];

/** compileConfig, with anything thrown but a ConfigError escaping to fail the property. */
function tryCompile(options: unknown): HeraldConfig | ConfigError {
  try {
    return compileConfig(options as HeraldOptions);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
}

type Json = unknown;
type PathStep = string | number;

/** Every path to a value inside a JSON tree (the root excluded). */
function paths(value: Json, prefix: PathStep[] = []): PathStep[][] {
  if (value === null || typeof value !== 'object') return [];
  const keys: PathStep[] = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((key) => [[...prefix, key], ...paths((value as Record<PathStep, Json>)[key], [...prefix, key])]);
}

/** A deep copy with the value at `path` replaced (or deleted when `replacement` is DELETE). */
const DELETE = Symbol('delete');
function mutate(value: Json, path: PathStep[], replacement: Json | typeof DELETE): Json {
  const copy = structuredClone(value) as Record<PathStep, Json>;
  let parent = copy;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<PathStep, Json>;
  const last = path[path.length - 1]!;
  if (replacement === DELETE) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else {
    parent[last] = replacement;
  }
  return copy;
}

const json = fc.jsonValue({ maxDepth: 3 });
/** Values that hit the validators' edges more often than arbitrary JSON does. */
const edgy = fc.oneof(
  json,
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    1.5,
    2 ** 53,
    '',
    ' ',
    'tcp://h:1',
    'mysql://x',
    '/abs',
    'x'.repeat(65),
    [],
    {},
    [''],
    [null],
    [{}],
    { id: 'a' },
  ),
);
const mutation = fc.record({
  base: fc.constantFrom(...VALID),
  pick: fc.nat(),
  replacement: fc.oneof(edgy, fc.constant(DELETE)),
});

describe('compileConfig, fuzzed', () => {
  it('accepts the valid base configs (so the mutations start from valid input)', () => {
    for (const base of VALID) expect(tryCompile(base)).not.toBeInstanceOf(ConfigError);
  });

  it('throws only ConfigError on arbitrary JSON', () => {
    fc.assert(
      fc.property(json, (value) => {
        tryCompile(value);
      }),
      settings,
    );
  });

  it('throws only ConfigError on objects of known sections holding arbitrary JSON', () => {
    const keys = [
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
      'auth',
      'frequency',
    ];
    const arb = fc.record(Object.fromEntries(keys.map((key) => [key, edgy])), { requiredKeys: [] });
    fc.assert(
      fc.property(arb, fc.constantFrom('embedded', 'production'), (options, profile) => {
        tryCompile(options);
        tryCompile({ ...options, profile });
      }),
      settings,
    );
  });

  it('throws only ConfigError on a valid config with one value replaced or removed', () => {
    fc.assert(
      fc.property(mutation, ({ base, pick, replacement }) => {
        const all = paths(base);
        const mutated = mutate(base, all[pick % all.length]!, replacement);
        tryCompile(mutated);
      }),
      settings,
    );
  });

  it('throws only ConfigError on a valid config with a value replaced in two places', () => {
    fc.assert(
      fc.property(mutation, fc.nat(), edgy, ({ base, pick, replacement }, pick2, replacement2) => {
        const first = mutate(base, paths(base)[pick % paths(base).length]!, replacement);
        const all = paths(first);
        tryCompile(all.length === 0 ? first : mutate(first, all[pick2 % all.length]!, replacement2));
      }),
      settings,
    );
  });

  it('gives back valid embedded settings as they were given', () => {
    const arb = fc
      .record({
        uinSpaceBits: fc.integer({ min: 1, max: 32 }),
        port: fc.integer({ min: 0, max: 65535 }),
        slots: fc.integer({ min: 1, max: 100_000 }),
        tickMs: fc.integer({ min: 10, max: 3_600_000 }),
        batchSize: fc.integer({ min: 1, max: 1 << 20 }),
        unitSize: fc.integer({ min: 1, max: 2 ** 40 }),
        ids: fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_.-]{1,64}$/), { minLength: 1, maxLength: 5 }),
        ttls: fc.tuple(
          fc.integer({ min: 1000, max: Number.MAX_SAFE_INTEGER }),
          fc.integer({ min: 1000, max: Number.MAX_SAFE_INTEGER }),
        ),
        dataDir: fc.string({ minLength: 1, maxLength: 40 }),
      })
      .map(({ ttls: [a, b], ...rest }) => ({ ...rest, defaultTtlMs: Math.min(a, b), maxTtlMs: Math.max(a, b) }));
    fc.assert(
      fc.property(arb, (s) => {
        const options = {
          dataDir: s.dataDir,
          uinSpaceBits: s.uinSpaceBits,
          http: { port: s.port },
          tasks: { defaultTtlMs: s.defaultTtlMs, maxTtlMs: s.maxTtlMs },
          scheduler: { slots: s.slots, tickMs: s.tickMs },
          dispatcher: { batchSize: s.batchSize, unitSize: s.unitSize },
          executor: { ids: s.ids },
        };
        // Through JSON text, as the file loader hands it over.
        const config = compileConfig(JSON.parse(JSON.stringify(options)) as HeraldOptions);
        expect(config).toMatchObject({
          ...options,
          uinLimit: 2 ** s.uinSpaceBits,
          profile: 'embedded',
          production: null,
        });
      }),
      settings,
    );
  });
});
