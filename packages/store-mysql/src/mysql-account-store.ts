import {
  applySettingsPatch,
  checkAccountDay,
  checkAccountId,
  checkQuotaTime,
  checkReservation,
  checkReservationKey,
  decideReservation,
  RESERVATION_RETENTION_MS,
  type AccountDay,
  type AccountLimits,
  type AccountLimitsOverride,
  type AccountLocalTime,
  type AccountSettings,
  type AccountSettingsPatch,
  type AccountUsage,
  type BroadcastReservation,
  type ReserveResult,
} from '@herald/core/account-quota';
import type { AccountStore } from '@herald/core/ports';
import type { RetryOptions } from '@herald/core/retry';
import { type Pool, type PoolConnection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import type { MySqlTaskStoreOptions } from './connection';
import { inTransaction, openPool, PoolCalls } from './pool';

const STORE = 'MySqlAccountStore';

type Rows = RowDataPacket[];
/** A pool or one connection inside a transaction: the reads run on either. */
type Queryable = Pick<Pool, 'execute'> | Pick<PoolConnection, 'execute'>;

function toSettings(r: RowDataPacket): AccountSettings {
  const limits = (
    r.limits === null ? {} : typeof r.limits === 'string' ? JSON.parse(r.limits) : r.limits
  ) as AccountLimitsOverride;
  return {
    accountId: String(r.account_id),
    limits,
    clickThroughRate: r.click_through_rate === null ? null : Number(r.click_through_rate),
    // migrations/030_local_time.sql: the account's local-time defaults, NULL when none.
    ...(r.local_time === null || r.local_time === undefined
      ? {}
      : {
          localTime: (typeof r.local_time === 'string' ? JSON.parse(r.local_time) : r.local_time) as AccountLocalTime,
        }),
    updatedAt: Number(r.updated_at),
  };
}

/**
 * The production AccountStore, on MySQL/MariaDB (mysql2), in the same
 * database as the task store: `account_settings` and `account_reservations`
 * of migration 008. It passes the same conformance suite as the embedded
 * LevelAccountStore.
 *
 * Atomicity across processes: every write of an account first upserts its
 * `account_settings` row (INSERT ... ON DUPLICATE KEY UPDATE, an exclusive
 * row lock whether the row existed or not), so an account's reservations,
 * releases and settings patches run one at a time everywhere, and other
 * accounts never wait. A reservation's transaction runs READ COMMITTED, so
 * the usage it reads after taking the lock includes every reservation
 * committed before, and it inserts (or refuses) before it lets go. Connection
 * failures, deadlocks and lock wait timeouts are UNAVAILABLE, retriable; a
 * retried reserve is answered by its key, never counted twice.
 */
export class MySqlAccountStore implements AccountStore {
  private readonly calls: PoolCalls;

  private constructor(
    private readonly pool: Pool,
    retry?: RetryOptions,
  ) {
    this.calls = new PoolCalls(STORE, pool, retry);
  }

  /** Connects to a migrated database (008_account_quotas.sql applied). Fails like MySqlTaskStore.open, naming `mysql.url` or `mysql.database`. */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlAccountStore> {
    return new MySqlAccountStore(await openPool(options), options.retry);
  }

  getSettings(accountId: string): Promise<AccountSettings | undefined> {
    return this.calls.idempotent('getSettings', async () => {
      checkAccountId(accountId);
      const [rows] = await this.pool.execute<Rows>(
        'SELECT account_id, limits, click_through_rate, local_time, updated_at FROM account_settings WHERE account_id = ? AND updated_at IS NOT NULL',
        [accountId],
      );
      return rows.length === 0 ? undefined : toSettings(rows[0]!);
    });
  }

  updateSettings(accountId: string, patch: AccountSettingsPatch, now: number): Promise<AccountSettings> {
    return this.calls.idempotent('updateSettings', async () => {
      checkAccountId(accountId);
      return this.transaction(async (conn) => {
        await this.lockAccount(conn, accountId);
        const [rows] = await conn.execute<Rows>(
          'SELECT account_id, limits, click_through_rate, local_time, updated_at FROM account_settings WHERE account_id = ? AND updated_at IS NOT NULL',
          [accountId],
        );
        const next = applySettingsPatch(accountId, rows.length === 0 ? undefined : toSettings(rows[0]!), patch, now);
        await conn.execute(
          'UPDATE account_settings SET limits = ?, click_through_rate = ?, local_time = ?, updated_at = ? WHERE account_id = ?',
          [
            JSON.stringify(next.limits),
            next.clickThroughRate,
            next.localTime === undefined ? null : JSON.stringify(next.localTime),
            next.updatedAt,
            accountId,
          ],
        );
        return next;
      });
    });
  }

  reserve(reservation: BroadcastReservation, limits: AccountLimits, day: AccountDay): Promise<ReserveResult> {
    return this.calls.idempotent('reserve', async () => {
      checkReservation(reservation, limits, day);
      const { accountId, key, sendAt } = reservation;
      return this.transaction(async (conn) => {
        await this.lockAccount(conn, accountId);
        const [existing] = await conn.execute<Rows>(
          'SELECT 1 FROM account_reservations WHERE account_id = ? AND reservation_key = ?',
          [accountId, key],
        );
        const usage = await readUsage(conn, accountId, day, sendAt);
        const result = decideReservation(reservation, limits, day, usage, existing.length > 0);
        if (!result.admitted || result.repeated) return result;
        await conn.execute('DELETE FROM account_reservations WHERE account_id = ? AND send_at < ?', [
          accountId,
          reservation.at - RESERVATION_RETENTION_MS,
        ]);
        await conn.execute(
          'INSERT INTO account_reservations (account_id, reservation_key, send_at, recipients, reserved_at) VALUES (?, ?, ?, ?, ?)',
          [accountId, key, sendAt, reservation.recipients, reservation.at],
        );
        return result;
      });
    });
  }

  release(accountId: string, key: string): Promise<boolean> {
    return this.calls.idempotent('release', async () => {
      checkAccountId(accountId);
      checkReservationKey(key);
      const [result] = await this.pool.execute<ResultSetHeader>(
        'DELETE FROM account_reservations WHERE account_id = ? AND reservation_key = ?',
        [accountId, key],
      );
      return result.affectedRows > 0;
    });
  }

  usage(accountId: string, day: AccountDay, around: number): Promise<AccountUsage> {
    return this.calls.idempotent('usage', async () => {
      checkAccountId(accountId);
      checkAccountDay(day, day.from);
      checkQuotaTime('around', around);
      return readUsage(this.pool, accountId, day, around);
    });
  }

  /** Waits for calls in flight, then closes the pool. Any later call fails with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.calls.close();
  }

  /** The account's row lock (the row is made, unset, when the account has none). */
  private async lockAccount(conn: PoolConnection, accountId: string): Promise<void> {
    await conn.execute(
      'INSERT INTO account_settings (account_id) VALUES (?) ON DUPLICATE KEY UPDATE account_id = account_id',
      [accountId],
    );
  }

  /** Runs `fn` in a READ COMMITTED transaction (pool.ts: a deadlock victim runs again). */
  private transaction<T>(fn: (conn: PoolConnection) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn, { readCommitted: true });
  }
}

/** The day's count and sum, and the nearest send times at or before and at or after `around`. */
async function readUsage(db: Queryable, accountId: string, day: AccountDay, around: number): Promise<AccountUsage> {
  const [sums] = await db.execute<Rows>(
    'SELECT COUNT(*) AS broadcasts, COALESCE(SUM(recipients), 0) AS recipients FROM account_reservations WHERE account_id = ? AND send_at >= ? AND send_at < ?',
    [accountId, day.from, day.to],
  );
  const [previous] = await db.execute<Rows>(
    'SELECT MAX(send_at) AS at FROM account_reservations WHERE account_id = ? AND send_at <= ?',
    [accountId, around],
  );
  const [next] = await db.execute<Rows>(
    'SELECT MIN(send_at) AS at FROM account_reservations WHERE account_id = ? AND send_at >= ?',
    [accountId, around],
  );
  const time = (rows: Rows) => (rows[0]!.at === null ? null : Number(rows[0]!.at));
  // SUM is DECIMAL: mysql2 answers it as a string.
  return {
    broadcasts: Number(sums[0]!.broadcasts),
    recipients: Number(sums[0]!.recipients),
    previousSendAt: time(previous),
    nextSendAt: time(next),
  };
}
