import { AbstractDeviceRegistry } from '@herald/core/adapter';
import { MAX_DEVICES_PER_UIN, type Device, type DevicePlatform, type RegisterResult } from '@herald/core/ports';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type { MySqlTaskStoreOptions } from './connection';
import { toHeraldError } from './mysql-errors';
import { inTransaction, openPool } from './pool';

const STORE = 'MySqlDeviceRegistry';
/** Distinct uins per SELECT of devicesOf. */
const READ_UINS = 4096;
/** Tokens per DELETE of removeDead. */
const DELETE_TOKENS = 1000;

export interface MySqlDeviceRegistryOptions extends MySqlTaskStoreOptions {
  /** Reads the registration time. Default Date.now. */
  now?: () => number;
}

/**
 * The production DeviceRegistry (docs/delivery.md, "Device registry"), on
 * MySQL/MariaDB: the `devices` table of migrations/015_devices.sql, in the
 * task store's database, so the API that registers and every executor's
 * push gateway share one map. It passes the same conformance suite as
 * LevelDeviceRegistry.
 *
 * Registering is one transaction: it first locks the user's row of
 * `device_users` (inserted on a user's first registration), so one user's
 * registrations run one after another and the trim to MAX_DEVICES_PER_UIN
 * sees every earlier one; then it deletes the token (wherever it was) and
 * inserts it again, newest by its AUTO_INCREMENT seq, and deletes the user's
 * oldest rows beyond the limit. Reads are plain SELECTs by (uin, seq).
 */
export class MySqlDeviceRegistry extends AbstractDeviceRegistry {
  private constructor(
    private readonly pool: Pool,
    options: MySqlDeviceRegistryOptions,
  ) {
    super({
      name: STORE,
      translate: (error, op) => toHeraldError(error, op, STORE),
      retry: options.retry,
      ...(options.now ? { now: options.now } : {}),
    });
  }

  /** Connects to a migrated database (015_devices.sql applied); fails like MySqlTaskStore.open, naming `mysql.url` or `mysql.database`. */
  static async open(options: MySqlDeviceRegistryOptions): Promise<MySqlDeviceRegistry> {
    const pool = await openPool(options);
    try {
      await pool.query('SELECT 1 FROM devices LIMIT 1');
      return new MySqlDeviceRegistry(pool, options);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw toHeraldError(error, 'open', STORE);
    }
  }

  protected _register(device: Device): Promise<RegisterResult> {
    return inTransaction(
      this.pool,
      async (conn) => {
        await conn.query('INSERT INTO device_users (uin) VALUES (?) ON DUPLICATE KEY UPDATE uin = uin', [device.uin]);
        await conn.query('DELETE FROM devices WHERE token = ?', [device.token]);
        await conn.query(
          'INSERT INTO devices (token, uin, platform, account_id, registered_at) VALUES (?, ?, ?, ?, ?)',
          [device.token, device.uin, device.platform, device.accountId ?? null, device.registeredAt],
        );
        const [beyond] = await conn.query<RowDataPacket[]>(
          'SELECT seq, token FROM devices WHERE uin = ? ORDER BY seq DESC LIMIT 18446744073709551615 OFFSET ?',
          [device.uin, MAX_DEVICES_PER_UIN],
        );
        if (beyond.length === 0) return { replaced: [] };
        await conn.query('DELETE FROM devices WHERE seq IN (?)', [beyond.map((row) => row.seq as number)]);
        return { replaced: beyond.map((row) => String(row.token)).reverse() };
      },
      { readCommitted: true },
    );
  }

  protected async _devicesOf(sortedUins: Uint32Array): Promise<Device[][]> {
    const distinct = [...new Set(sortedUins)];
    const byUin = new Map<number, Device[]>();
    for (let start = 0; start < distinct.length; start += READ_UINS) {
      const [rows] = await this.pool.query<RowDataPacket[]>(
        'SELECT token, uin, platform, account_id, registered_at FROM devices WHERE uin IN (?) ORDER BY uin, seq',
        [distinct.slice(start, start + READ_UINS)],
      );
      for (const row of rows) {
        const uin = Number(row.uin);
        const device: Device = {
          token: String(row.token),
          uin,
          platform: row.platform as DevicePlatform,
          ...(row.account_id === null ? {} : { accountId: String(row.account_id) }),
          registeredAt: Number(row.registered_at),
        };
        byUin.set(uin, [...(byUin.get(uin) ?? []), device]);
      }
    }
    return Array.from(sortedUins, (uin) => (byUin.get(uin) ?? []).map((d) => ({ ...d })));
  }

  protected async _removeTokens(tokens: readonly string[]): Promise<number> {
    const distinct = [...new Set(tokens)];
    let removed = 0;
    for (let start = 0; start < distinct.length; start += DELETE_TOKENS) {
      const [result] = await this.pool.query<ResultSetHeader>('DELETE FROM devices WHERE token IN (?)', [
        distinct.slice(start, start + DELETE_TOKENS),
      ]);
      removed += result.affectedRows;
    }
    return removed;
  }

  protected async _close(): Promise<void> {
    await this.pool.end();
  }
}
