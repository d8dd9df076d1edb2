import { checkZooKeeperCredentials, checkZooKeeperMonitorDigest } from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { ACL, Id, Permission } from 'node-zookeeper-client';

/**
 * Digest authentication and the ACLs of the znodes Herald creates (setting
 * `zookeeper.auth`, docs/security-connections.md).
 *
 * Without auth every znode is created world:anyone:cdrwa, as before: anyone
 * who reaches ZooKeeper can read and change leaders and checkpoints. With it,
 * the session authenticates as digest user:password and every znode Herald
 * creates (the root and its parents, checkpoints, election nodes) gets
 * auth::cdrwa, all permissions for the identity that created it, which every
 * Herald process shares, plus read for an optional monitoring identity.
 */
export interface ZooKeeperAuthOptions {
  /** "user:password" (never shown in an error or a log line). */
  credentials: string;
  /** "user:base64(sha1(user:password))" of a monitoring identity given read access. @defaultValue none */
  monitorDigest?: string;
}

export interface CompiledZooKeeperAuth {
  /** What addAuthInfo('digest', ...) sends. */
  credentials: Buffer;
  /** The ACL of every znode Herald creates. */
  acls: ACL[];
  /** The user part, for logs. */
  user: string;
}

/** Checks `zookeeper.auth`; undefined keeps the open ACLs. */
export function compileZooKeeperAuth(auth: ZooKeeperAuthOptions | undefined): CompiledZooKeeperAuth | null {
  if (auth === undefined) return null;
  if (typeof auth !== 'object' || auth === null)
    throw new ConfigError('zookeeper.auth', 'must be { credentials, monitorDigest? }');
  const credentials = checkZooKeeperCredentials(auth.credentials);
  const acls = [new ACL(Permission.ALL, new Id('auth', ''))];
  if (auth.monitorDigest !== undefined)
    acls.push(new ACL(Permission.READ, new Id('digest', checkZooKeeperMonitorDigest(auth.monitorDigest))));
  return { credentials: Buffer.from(credentials, 'utf8'), acls, user: credentials.slice(0, credentials.indexOf(':')) };
}

/** The ACL for znodes created without auth: the library's default, world:anyone:cdrwa. */
export const OPEN_ACLS: ACL[] = ACL.OPEN_ACL_UNSAFE;
