import { ConfigError } from '@herald/core';
import { ZOOKEEPER_LIMITS } from '@herald/core/config';
import { compileZooKeeperAuth } from './acl';
import { compileZooKeeperOptions } from './options';

/** The setting the coordinator's own options name for these values, or undefined when it accepts them. */
function refused(options: Record<string, unknown>): string | undefined {
  try {
    compileZooKeeperOptions({ connectionString: 'zk1:2181', ...options } as never);
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).details.setting as string;
  }
}

describe('compileZooKeeperOptions', () => {
  it('takes the bounds compileConfig takes (core ZOOKEEPER_LIMITS), not looser ones', () => {
    const { sessionTimeoutMs, connectTimeoutMs } = ZOOKEEPER_LIMITS;
    expect(refused({ sessionTimeoutMs: sessionTimeoutMs.min, connectTimeoutMs: connectTimeoutMs.min })).toBeUndefined();
    expect(refused({ sessionTimeoutMs: sessionTimeoutMs.min - 1 })).toBe('zookeeper.sessionTimeoutMs');
    expect(refused({ sessionTimeoutMs: sessionTimeoutMs.max + 1 })).toBe('zookeeper.sessionTimeoutMs');
    expect(refused({ connectTimeoutMs: connectTimeoutMs.min - 1 })).toBe('zookeeper.connectTimeoutMs');
  });

  it('checks the root as compileConfig does', () => {
    expect(refused({ root: '/herald/prod' })).toBeUndefined();
    expect(refused({ root: '/her ald' })).toBe('zookeeper.root');
  });

  it('checks auth with the same checks as compileConfig', () => {
    expect(() => compileZooKeeperAuth({ credentials: 'no-colon' })).toThrow('zookeeper.auth.credentials');
    expect(() => compileZooKeeperAuth({ credentials: 'herald:secret', monitorDigest: 'monitor:short' })).toThrow(
      'zookeeper.auth.monitorDigest',
    );
    expect(compileZooKeeperAuth({ credentials: 'herald:secret' })?.user).toBe('herald');
  });
});
