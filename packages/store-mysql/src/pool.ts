/**
 * What the MySQL adapters share: opening a pool on a migrated database, and
 * the open/closed bookkeeping every call goes through (STORE_CLOSED after
 * close, mysql2 errors turned into HeraldErrors, close waiting for calls in
 * flight), and running a transaction. The task store keeps its own
 * bookkeeping (it also advances the live-task checkpoint on open).
 */
import { ConfigError, ErrorCodes, HeraldError } from '@herald/core';
import { createPool, type Pool, type PoolConnection } from 'mysql2/promise';
import { checkDatabaseName, checkPoolSize, connectionOptions, parseMySqlUrl, type MySqlTaskStoreOptions } from './connection';
import { loadMigrations, pendingMigrations, readApplied } from './migrate';
import { connectError, isConnectionError, isDeadlock, mysqlCode, toHeraldError } from './mysql-errors';

/**
 * A pool on `options.database`. With `migrated` (the default) the database
 * must hold every migration (else ConfigError naming mysql.database: run
 * herald migrate); a table source reads tables Herald did not make and skips
 * that check, but still proves the server answers.
 */
export async function openPool(options: MySqlTaskStoreOptions, migrated = true): Promise<Pool> {
  const url = parseMySqlUrl(options?.url);
  const database = checkDatabaseName(options.database);
  const poolSize = checkPoolSize(options.poolSize);
  const files = migrated ? await loadMigrations() : [];
  const pool = createPool({ ...connectionOptions(url, database, options.tls), connectionLimit: poolSize, maxIdle: poolSize, waitForConnections: true, queueLimit: 0 });
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
      if (mysqlCode(error) === 'ER_NO_SUCH_TABLE') throw new ConfigError('mysql.database', `database '${database}' is not migrated (no schema_migrations table): run herald migrate`);
      throw connectError(error, url, database);
    }
    const pending = pendingMigrations(files, applied);
    if (pending.length > 0) throw new ConfigError('mysql.database', `database '${database}' lacks migrations ${pending.map((m) => m.name).join(', ')}: run herald migrate`);
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
}

/** Open/closed bookkeeping for one adapter's pool. */
export class PoolCalls {
  private closed = false;
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(
    private readonly store: string,
    private readonly pool: Pool,
  ) {}

  /** Runs one call: refused after close (STORE_CLOSED), errors as HeraldErrors (connection loss and lock conflicts UNAVAILABLE, retriable). */
  async run<T>(op: string, fn: (pool: Pool) => Promise<T>): Promise<T> {
    if (this.closed) throw new HeraldError(ErrorCodes.STORE_CLOSED, `${this.store}.${op}: the store is closed`);
    const call = fn(this.pool);
    this.inflight.add(call);
    try {
      return await call;
    } catch (error) {
      throw toHeraldError(error, op, this.store);
    } finally {
      this.inflight.delete(call);
    }
  }

  /** Waits for calls in flight, then ends the pool; a second close is a no-op. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inflight]);
    try {
      await this.pool.end();
    } catch (error) {
      throw toHeraldError(error, 'close', this.store);
    }
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
export async function inTransaction<T>(pool: Pool, fn: (conn: PoolConnection) => Promise<T>, options: { readCommitted?: boolean } = {}): Promise<T> {
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
