import { ConfigError } from '@herald/core';
import { DEFAULTS } from '@herald/core/config';
import { noopLogger, type Logger } from '@herald/core/ports';
import { compileZooKeeperAuth, type CompiledZooKeeperAuth, type ZooKeeperAuthOptions } from './acl';

/** How to reach ZooKeeper and where this cluster's znodes live. */
export interface ZooKeeperCoordinatorOptions {
  /** 'host:port[,host:port...]' (an optional '/chroot' suffix is allowed), e.g. 'zk1:2181,zk2:2181,zk3:2181'. */
  connectionString: string;
  /** This cluster's namespace, an absolute znode path such as '/herald/prod'. @defaultValue '/herald' */
  root?: string;
  /** Session timeout asked of ZooKeeper (the server clamps it to its own bounds). @defaultValue 10000 */
  sessionTimeoutMs?: number;
  /** How long `connect` waits for a first session before it gives up. @defaultValue 10000 */
  connectTimeoutMs?: number;
  /** Connection and session events, structured. @defaultValue noopLogger */
  logger?: Logger;
  /** Digest authentication and creator-only ACLs on every znode created (setting `zookeeper.auth`). @defaultValue none: world-open znodes */
  auth?: ZooKeeperAuthOptions;
}

/** The options with defaults applied and checked. */
export interface CompiledZooKeeperOptions {
  connectionString: string;
  root: string;
  sessionTimeoutMs: number;
  connectTimeoutMs: number;
  logger: Logger;
  auth: CompiledZooKeeperAuth | null;
}

const SERVER = /^[^\s,/:]+:\d{1,5}$/;
const SEGMENT_FORBIDDEN = /[\u0000-\u001f\u007f]/;

function checkConnectionString(value: unknown): string {
  const setting = 'zookeeper.connectionString';
  if (typeof value !== 'string' || value.trim() === '') throw new ConfigError(setting, 'is required: host:port[,host:port...]');
  const slash = value.indexOf('/');
  const servers = (slash < 0 ? value : value.slice(0, slash)).split(',');
  const bad = servers.find((s) => !SERVER.test(s) || Number(s.slice(s.lastIndexOf(':') + 1)) > 65_535);
  if (bad !== undefined) throw new ConfigError(setting, `must be host:port[,host:port...] (bad server ${JSON.stringify(bad)} in ${JSON.stringify(value)})`);
  if (slash >= 0) checkPath(setting, value.slice(slash));
  return value;
}

/** An absolute znode path: '/a/b', no empty, '.', '..' or control-character segments, no trailing '/'. */
function checkPath(setting: string, value: unknown): string {
  const fail = (): never => {
    throw new ConfigError(setting, `must be an absolute znode path such as '/herald/prod' (got ${JSON.stringify(value)})`);
  };
  if (typeof value !== 'string' || !value.startsWith('/') || value === '/') return fail();
  for (const segment of value.slice(1).split('/')) {
    if (segment === '' || segment === '.' || segment === '..' || SEGMENT_FORBIDDEN.test(segment)) fail();
  }
  if (value === '/zookeeper' || value.startsWith('/zookeeper/')) {
    throw new ConfigError(setting, `must not be under /zookeeper, which ZooKeeper reserves (got ${JSON.stringify(value)})`);
  }
  return value as string;
}

function checkMs(setting: string, value: unknown, min: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min) throw new ConfigError(setting, `must be an integer number of ms >= ${min} (got ${String(value)})`);
  return value as number;
}

/** Applies the defaults and checks every setting; a bad one fails with a ConfigError naming it. */
export function compileZooKeeperOptions(options: ZooKeeperCoordinatorOptions): CompiledZooKeeperOptions {
  const {
    connectionString,
    root = DEFAULTS.zookeeper.root,
    sessionTimeoutMs = DEFAULTS.zookeeper.sessionTimeoutMs,
    connectTimeoutMs = DEFAULTS.zookeeper.connectTimeoutMs,
    logger = noopLogger,
    auth,
  } = options;
  return {
    connectionString: checkConnectionString(connectionString),
    root: checkPath('zookeeper.root', root),
    sessionTimeoutMs: checkMs('zookeeper.sessionTimeoutMs', sessionTimeoutMs, 1),
    connectTimeoutMs: checkMs('zookeeper.connectTimeoutMs', connectTimeoutMs, 1),
    logger,
    auth: compileZooKeeperAuth(auth),
  };
}
