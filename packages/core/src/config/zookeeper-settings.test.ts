import { ConfigError } from '../errors';
import { compileConfig } from './compile';
import type { HeraldOptions } from './options';
import {
  checkZooKeeperConnectionString,
  checkZooKeeperRoot,
  ZOOKEEPER_LIMITS,
  zookeeperMs,
} from './zookeeper-settings';

const PRODUCTION = {
  profile: 'production',
  mysql: { url: 'mysql://herald@db:3306' },
  zookeeper: { connectionString: 'zk1:2181' },
  kafka: { brokers: ['k1:9092'] },
  curve: { keysDir: '/etc/herald/keys' },
  topology: {
    schedulers: [{ id: 'scheduler-1', endpoint: 'tcp://10.0.0.1:7101' }],
    dispatchers: [{ id: 'dispatcher-1', endpoint: 'tcp://10.0.0.2:7201' }],
    executors: [{ id: 'executor-1', endpoint: 'tcp://10.0.0.3:7301' }],
    presence: [{ id: 'presence-1', bitmapFile: '/dev/shm/herald-online.bitmap', executors: ['executor-1'] }],
  },
};

/** The setting compileConfig names for these zookeeper options, or undefined when it accepts them. */
function refusedByCompile(zookeeper: Record<string, unknown>): string | undefined {
  try {
    compileConfig({ ...PRODUCTION, zookeeper: { ...PRODUCTION.zookeeper, ...zookeeper } } as HeraldOptions);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).details.setting as string;
  }
}

describe('zookeeper.* settings', () => {
  it('bounds sessionTimeoutMs and connectTimeoutMs by ZOOKEEPER_LIMITS, defaulting when absent', () => {
    expect(zookeeperMs('sessionTimeoutMs', undefined)).toBe(10_000);
    for (const name of ['sessionTimeoutMs', 'connectTimeoutMs'] as const) {
      const { min, max } = ZOOKEEPER_LIMITS[name];
      expect(zookeeperMs(name, min)).toBe(min);
      expect(zookeeperMs(name, max)).toBe(max);
      for (const bad of [min - 1, max + 1, 1.5, '5000'])
        expect(() => zookeeperMs(name, bad)).toThrow(`zookeeper.${name}`);
    }
  });

  it('accepts host:port lists with an optional chroot and refuses the rest', () => {
    for (const good of ['zk1:2181', 'zk1:2181,zk2:2181', 'zk1:2181/herald/prod'])
      expect(checkZooKeeperConnectionString(good)).toBe(good);
    for (const bad of ['', 'zk1', 'zk1:2181,', 'zk1:99999', 'zk1:2181/', 'zk1:2181/a//b'])
      expect(() => checkZooKeeperConnectionString(bad)).toThrow(ConfigError);
  });

  it('accepts a root of letters, digits, _ . - segments, outside /zookeeper', () => {
    for (const good of ['/herald', '/herald/prod-1', '/a.b/c_d']) expect(checkZooKeeperRoot(good)).toBe(good);
    for (const bad of [
      'herald',
      '/',
      '/herald/',
      '/herald//prod',
      '/herald/../prod',
      '/zookeeper/herald',
      '/her ald',
      '/héra',
    ])
      expect(() => checkZooKeeperRoot(bad)).toThrow(ConfigError);
  });

  it('is what compileConfig checks in the production profile', () => {
    expect(refusedByCompile({})).toBeUndefined();
    expect(refusedByCompile({ sessionTimeoutMs: ZOOKEEPER_LIMITS.sessionTimeoutMs.min - 1 })).toBe(
      'zookeeper.sessionTimeoutMs',
    );
    expect(refusedByCompile({ connectTimeoutMs: ZOOKEEPER_LIMITS.connectTimeoutMs.max + 1 })).toBe(
      'zookeeper.connectTimeoutMs',
    );
    expect(refusedByCompile({ connectionString: 'zk1:99999' })).toBe('zookeeper.connectionString');
    expect(refusedByCompile({ root: '/herald/../prod' })).toBe('zookeeper.root');
    expect(refusedByCompile({ auth: { credentials: 'no-colon' } })).toBe('zookeeper.auth.credentials');
    expect(refusedByCompile({ auth: { credentials: 'herald:secret', monitorDigest: 'monitor:short' } })).toBe(
      'zookeeper.auth.monitorDigest',
    );
  });
});
