import { ConfigError } from '@herald/core';
import type { RetryOptions } from '@herald/core/retry';
import type { ConnectionOptions } from 'mysql2/promise';
import { compileMySqlTls, type MySqlTlsMaterial } from './tls';

/** Where the task store lives: the production profile's `mysql.*` settings. */
export interface MySqlConnectionOptions {
  /** `mysql://user:password@host:port` (`mysql.url`). A database in the path is ignored: `database` names it. */
  url: string;
  /** The database holding Herald's tables (`mysql.database`): letters, digits, `_` and `$`, at most 64. */
  database: string;
  /** TLS to the server (`mysql.tls`). @defaultValue none: plaintext, as the server allows */
  tls?: MySqlTlsMaterial;
}

export interface MySqlTaskStoreOptions extends MySqlConnectionOptions {
  /**
   * Connections in the pool (`mysql.poolSize`), 1..1000.
   * @defaultValue 10
   */
  poolSize?: number;
  /**
   * Connections opened when the pool opens (at most `poolSize`), so the
   * first calls after a start find them open instead of waiting for a
   * handshake each. The pool keeps idle connections (its maxIdle is its size).
   * @defaultValue 1 (the one that checks the migrations)
   */
  warmConnections?: number;
  /**
   * With these, the calls an adapter documents as safe to repeat ride out a
   * server outage (connection loss, deadlocks) with jittered backoff; the
   * others (an AUTO_INCREMENT insert, a keyless task creation) run once.
   * @defaultValue none: every call runs once
   */
  retry?: RetryOptions;
  /**
   * How long a connection waits for the first byte of the server's answer to
   * a request before it is dropped as dead (`mysql.replyTimeoutMs`),
   * 100..3,600,000. The call then fails UNAVAILABLE (retriable), and a call
   * safe to repeat runs again on a fresh connection. It must exceed the
   * slowest statement and the server's lock wait timeout
   * (innodb_lock_wait_timeout, 50 s by default), which answers a lock wait
   * itself.
   * @defaultValue 60000
   */
  replyTimeoutMs?: number;
}

export const DEFAULT_POOL_SIZE = 10;
export const DEFAULT_REPLY_TIMEOUT_MS = 60_000;

/** Parses `mysql.url`; anything but a mysql:// or mariadb:// URL with a host is a ConfigError. */
export function parseMySqlUrl(url: unknown): URL {
  if (typeof url !== 'string' || url === '')
    throw new ConfigError('mysql.url', 'must be a URL like mysql://user:password@host:3306');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError('mysql.url', 'is not a valid URL (expected mysql://user:password@host:3306)');
  }
  if (parsed.protocol !== 'mysql:' && parsed.protocol !== 'mariadb:')
    throw new ConfigError('mysql.url', `protocol ${parsed.protocol} is not mysql:`);
  if (parsed.hostname === '') throw new ConfigError('mysql.url', 'names no host');
  return parsed;
}

/**
 * Checks `mysql.database`. Database names cannot be bound as placeholders, so
 * only names that need no escaping are accepted, and they are always quoted.
 */
export function checkDatabaseName(database: unknown): string {
  if (typeof database !== 'string' || !/^[A-Za-z0-9_$]{1,64}$/.test(database)) {
    throw new ConfigError('mysql.database', 'must be 1..64 letters, digits, _ or $');
  }
  return database;
}

export function checkPoolSize(poolSize: unknown): number {
  if (poolSize === undefined) return DEFAULT_POOL_SIZE;
  if (!Number.isInteger(poolSize) || (poolSize as number) < 1 || (poolSize as number) > 1000)
    throw new ConfigError('mysql.poolSize', 'must be an integer in 1..1000');
  return poolSize as number;
}

export function checkReplyTimeout(replyTimeoutMs: unknown): number {
  if (replyTimeoutMs === undefined) return DEFAULT_REPLY_TIMEOUT_MS;
  if (!Number.isInteger(replyTimeoutMs) || (replyTimeoutMs as number) < 100 || (replyTimeoutMs as number) > 3_600_000)
    throw new ConfigError('mysql.replyTimeoutMs', 'must be an integer of milliseconds in 100..3600000');
  return replyTimeoutMs as number;
}

/** mysql2 connection options for a parsed URL; `database` set only when given; `ssl` only with `tls` (checked: ConfigError naming its mysql.tls setting). */
export function connectionOptions(url: URL, database?: string, tls?: MySqlTlsMaterial): ConnectionOptions {
  return {
    ...(tls === undefined ? {} : { ssl: compileMySqlTls(tls) }),
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: url.port === '' ? 3306 : Number(url.port),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    ...(database === undefined ? {} : { database }),
    charset: 'utf8mb4',
    // Ids are safe integers; BIGINT columns come back as numbers.
    supportBigNumbers: true,
    bigNumberStrings: false,
    connectTimeout: 10_000,
  };
}

/** `name` quoted as an identifier; only names checkDatabaseName accepted reach here. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replace(/`/g, '``')}\``;
}
