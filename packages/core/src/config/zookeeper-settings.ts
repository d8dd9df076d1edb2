import { ConfigError } from '../errors';
import { DEFAULTS } from './defaults';
import { int } from './validate';

/**
 * The checks of the zookeeper.* settings, in one place: compileConfig (the
 * production profile) and the ZooKeeper coordinator's own options both call
 * these, so a value one accepts the other accepts too, with the same message.
 */

/** Bounds of the zookeeper.* durations, in ms. */
export const ZOOKEEPER_LIMITS = {
  /** What is asked of ZooKeeper (the server clamps it to its own bounds); a second at least, or sessions expire on a GC pause. */
  sessionTimeoutMs: { min: 1000, max: 600_000 },
  connectTimeoutMs: { min: 100, max: 600_000 },
} as const;

const SERVER = /^[^\s,/:]+:\d{1,5}$/;
// Control characters are exactly what this pattern is for.
// eslint-disable-next-line no-control-regex
const SEGMENT_FORBIDDEN = /[\u0000-\u001f\u007f]/;
const ROOT_CHARACTERS = /^[A-Za-z0-9_./-]+$/;
const USER_PASSWORD = /^[^:\s]+:.+$/s;
const DIGEST_ID = /^[^:\s]+:[A-Za-z0-9+/]{27}=$/;

/** 'host:port[,host:port...]' with an optional '/chroot' suffix (setting zookeeper.connectionString). */
export function checkZooKeeperConnectionString(value: unknown, setting = 'zookeeper.connectionString'): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new ConfigError(setting, 'is required: host:port[,host:port...]');
  const slash = value.indexOf('/');
  const servers = (slash < 0 ? value : value.slice(0, slash)).split(',');
  const bad = servers.find((s) => !SERVER.test(s) || Number(s.slice(s.lastIndexOf(':') + 1)) > 65_535);
  if (bad !== undefined)
    throw new ConfigError(
      setting,
      `must be host:port[,host:port...] (bad server ${JSON.stringify(bad)} in ${JSON.stringify(value)})`,
    );
  if (slash >= 0) checkZnodePath(setting, value.slice(slash));
  return value;
}

/** An absolute znode path: '/a/b', no empty, '.', '..' or control-character segments, no trailing '/', not under /zookeeper. */
export function checkZnodePath(setting: string, value: unknown): string {
  const fail = (): never => {
    throw new ConfigError(
      setting,
      `must be an absolute znode path such as '/herald/prod' (got ${JSON.stringify(value)})`,
    );
  };
  if (typeof value !== 'string' || !value.startsWith('/') || value === '/') return fail();
  for (const segment of value.slice(1).split('/')) {
    if (segment === '' || segment === '.' || segment === '..' || SEGMENT_FORBIDDEN.test(segment)) fail();
  }
  if (value === '/zookeeper' || value.startsWith('/zookeeper/')) {
    throw new ConfigError(
      setting,
      `must not be under /zookeeper, which ZooKeeper reserves (got ${JSON.stringify(value)})`,
    );
  }
  return value as string;
}

/** zookeeper.root: a znode path of letters, digits, _ . - segments. */
export function checkZooKeeperRoot(value: unknown, setting = 'zookeeper.root'): string {
  const root = checkZnodePath(setting, value);
  if (!ROOT_CHARACTERS.test(root))
    throw new ConfigError(
      setting,
      `must be an absolute znode path of letters, digits, _ . - (got ${JSON.stringify(root)})`,
    );
  return root;
}

/** zookeeper.auth.credentials: "user:password" (the value is never shown). */
export function checkZooKeeperCredentials(value: unknown, setting = 'zookeeper.auth.credentials'): string {
  if (typeof value !== 'string' || !USER_PASSWORD.test(value))
    throw new ConfigError(setting, 'must be "user:password" (user without ":"; the value is not shown)');
  return value;
}

/** zookeeper.auth.monitorDigest: "user:base64(sha1(user:password))". */
export function checkZooKeeperMonitorDigest(value: unknown, setting = 'zookeeper.auth.monitorDigest'): string {
  if (typeof value !== 'string' || !DIGEST_ID.test(value))
    throw new ConfigError(setting, 'must be "user:digest", digest = base64(sha1("user:password")), 28 characters');
  return value;
}

/** zookeeper.sessionTimeoutMs or zookeeper.connectTimeoutMs: an integer within ZOOKEEPER_LIMITS, the default when absent. */
export function zookeeperMs(name: keyof typeof ZOOKEEPER_LIMITS, value: unknown): number {
  const { min, max } = ZOOKEEPER_LIMITS[name];
  return int(`zookeeper.${name}`, value, DEFAULTS.zookeeper[name], min, max);
}
