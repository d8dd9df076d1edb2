/**
 * What the MySQL adapters share: opening a pool on a migrated database, and
 * the open/closed bookkeeping every call goes through (STORE_CLOSED after
 * close, mysql2 errors turned into HeraldErrors, close waiting for calls in
 * flight), and running a transaction.
 */
import { AdapterLifecycle } from '@herald/core/adapter';
import { ConfigError } from '@herald/core';
import type { RetryOptions } from '@herald/core/retry';
import { createPool, type Pool, type PoolConnection } from 'mysql2/promise';
import {
  checkDatabaseName,
  checkPoolSize,
  checkReplyTimeout,
  connectionOptions,
  parseMySqlUrl,
  type MySqlTaskStoreOptions,
} from './connection';
import { loadMigrations, pendingMigrations, readApplied } from './migrate';
import { connectError, isConnectionError, isDeadlock, mysqlCode, toHeraldError } from './mysql-errors';
import { watchReplies } from './reply-watchdog';

/**
 * A pool on `options.database`, each connection of which drops a request
 * the server leaves unanswered for `replyTimeoutMs` (reply-watchdog.ts). With `migrated` (the default) the database
 * must hold every migration (else ConfigError naming mysql.database: run
 * herald migrate); a table source reads tables Herald did not make and skips
 * that check, but still proves the server answers.
 */
export async function openPool(options: MySqlTaskStoreOptions, migrated = true): Promise<Pool> {
  const url = parseMySqlUrl(options?.url);
  const database = checkDatabaseName(options.database);
  const poolSize = checkPoolSize(options.poolSize);
  const replyTimeoutMs = checkReplyTimeout(options.replyTimeoutMs);
  const files = migrated ? await loadMigrations() : [];
  const pool = createPool({
    ...connectionOptions(url, database, options.tls),
    connectionLimit: poolSize,
    maxIdle: poolSize,
    waitForConnections: true,
    queueLimit: 0,
  });
  // Before the first query, so every connection, the migrations check's included, is watched.
  watchReplies(pool, replyTimeoutMs);
  try {
    if (!migrated) {
      try {
        await pool.query('SELECT 1');
      } catch (error) {
        throw connectError(error, url, database);
      }
      return pool;
    }
    let applied;
    try {
      applied = await readApplied(pool);
    } catch (error) {
      if (mysqlCode(error) === 'ER_NO_SUCH_TABLE')
        throw new ConfigError(
          'mysql.database',
          `database '${database}' is not migrated (no schema_migrations table): run herald migrate`,
        );
      throw connectError(error, url, database);
    }
    const pending = pendingMigrations(files, applied);
    if (pending.length > 0)
      throw new ConfigError(
        'mysql.database',
        `database '${database}' lacks migrations ${pending.map((m) => m.name).join(', ')}: run herald migrate`,
      );
    try {
      await openConnections(pool, Math.min(options.warmConnections ?? 1, poolSize));
    } catch (error) {
      throw connectError(error, url, database);
    }
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** Opens `count` connections at once and gives them back to the pool, which keeps them idle. */
async function openConnections(pool: Pool, count: number): Promise<void> {
  if (count <= 1) return; // the migrations check opened one
  const held = await Promise.allSettled(Array.from({ length: count }, () => pool.getConnection()));
  for (const connection of held) if (connection.status === 'fulfilled') connection.value.release();
  const failed = held.find((connection) => connection.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
}

/**
 * Open/closed bookkeeping for one adapter's pool: the core AdapterLifecycle
 * with mysql2's error translation (connection loss and lock conflicts
 * UNAVAILABLE, retriable). `run` runs a call once; `idempotent` marks a call
 * safe to repeat, which then rides out an outage when the adapter was opened
 * with `retry` options.
 */
export class PoolCalls {
  private readonly life: AdapterLifecycle;

  constructor(
    store: string,
    private readonly pool: Pool,
    retry?: RetryOptions,
  ) {
    this.life = new AdapterLifecycle({ name: store, translate: (error, op) => toHeraldError(error, op, store), retry });
  }

  get closed(): boolean {
    return this.life.closed;
  }

  /** Runs one call once: refused after close (STORE_CLOSED), errors as HeraldErrors. */
  run<T>(op: string, fn: (pool: Pool) => Promise<T>): Promise<T> {
    return this.life.run(op, () => fn(this.pool));
  }

  /** Runs a call that is safe to repeat; with retry options, again through an outage. */
  idempotent<T>(op: string, fn: (pool: Pool) => Promise<T>): Promise<T> {
    return this.life.idempotent(op, () => fn(this.pool));
  }

  /** Waits for calls in flight, then ends the pool; a second close answers the first's promise. */
  close(): Promise<void> {
    return this.life.close(() => this.pool.end());
  }
}

/** How many times a transaction InnoDB chose as a deadlock victim is run in all before it fails UNAVAILABLE. */
export const DEADLOCK_ATTEMPTS = 3;

/**
 * Runs `fn` in a transaction on one pooled connection: commit on success,
 * rollback on any error. A deadlock victim (InnoDB rolled it back whole) is
 * run again, up to DEADLOCK_ATTEMPTS runs in all. A connection that failed is
 * destroyed rather than returned to the pool. With `readCommitted`, each read
 * of the transaction sees what was committed before it, not a snapshot taken
 * before its first lock.
 */
export async function inTransaction<T>(
  pool: Pool,
  fn: (conn: PoolConnection) => Promise<T>,
  options: { readCommitted?: boolean } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const conn = await pool.getConnection();
    let broken = false;
    try {
      if (options.readCommitted === true) await conn.query('SET TRANSACTION ISOLATION LEVEL READ COMMITTED');
      await conn.beginTransaction();
      const result = await fn(conn);
      await conn.commit();
      return result;
    } catch (error) {
      broken = isConnectionError(error);
      if (!broken) await conn.rollback().catch(() => (broken = true));
      if (isDeadlock(error) && attempt < DEADLOCK_ATTEMPTS) continue;
      throw error;
    } finally {
      if (broken) conn.destroy();
      else conn.release();
    }
  }
}
