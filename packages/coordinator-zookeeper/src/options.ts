import { DEFAULTS, checkZooKeeperConnectionString, checkZooKeeperRoot, zookeeperMs } from '@herald/core/config';
import { noopLogger, type Logger } from '@herald/core/ports';
import { compileZooKeeperAuth, type CompiledZooKeeperAuth, type ZooKeeperAuthOptions } from './acl';

/** How to reach ZooKeeper and where this cluster's znodes live. */
export interface ZooKeeperCoordinatorOptions {
  /** 'host:port[,host:port...]' (an optional '/chroot' suffix is allowed), e.g. 'zk1:2181,zk2:2181,zk3:2181'. */
  connectionString: string;
  /** This cluster's namespace, an absolute znode path such as '/herald/prod'. @defaultValue '/herald' */
  root?: string;
  /** Session timeout asked of ZooKeeper (the server clamps it to its own bounds), within core's ZOOKEEPER_LIMITS. @defaultValue 10000 */
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

/** Applies the defaults and checks every setting with core's zookeeper.* checks (the ones compileConfig runs); a bad one fails with a ConfigError naming it. */
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
    connectionString: checkZooKeeperConnectionString(connectionString),
    root: checkZooKeeperRoot(root),
    sessionTimeoutMs: zookeeperMs('sessionTimeoutMs', sessionTimeoutMs),
    connectTimeoutMs: zookeeperMs('connectTimeoutMs', connectTimeoutMs),
    logger,
    auth: compileZooKeeperAuth(auth),
  };
}
