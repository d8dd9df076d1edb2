import { createPool } from 'mysql2/promise';
import type { DeviceRegistration } from '@herald/core/ports';

/** Rows per INSERT: some 100 KB of statement with FCM-length tokens, well under max_allowed_packet. */
const ROWS_PER_INSERT = 500;

/**
 * Writes `registrations` into the cluster's device registry (the `devices`
 * and `device_users` tables of migration 017, which MySqlDeviceRegistry
 * reads) as plain multi-row INSERTs: a test fixture for 10^5 devices at
 * once. The registry has no bulk path, and its `register` (one locking
 * transaction per token, the API's path) ran some 635 a second on this
 * machine: 10^5 would take minutes of the test. The rows are what
 * `register` writes for a user's first device of each platform, so nothing
 * the push gateways read differs; `register` itself is the conformance
 * suite's to test. Expects each token once and at most MAX_DEVICES_PER_UIN
 * registrations per uin.
 */
export async function seedDevices(database: string, registrations: readonly DeviceRegistration[]): Promise<void> {
  const pool = createPool({ uri: process.env.HERALD_TEST_MYSQL_URL!, database, connectionLimit: 4 });
  try {
    const now = Date.now();
    const uins = [...new Set(registrations.map((r) => r.uin))];
    for (let start = 0; start < uins.length; start += ROWS_PER_INSERT)
      await pool.query('INSERT IGNORE INTO device_users (uin) VALUES ?', [
        uins.slice(start, start + ROWS_PER_INSERT).map((uin) => [uin]),
      ]);
    for (let start = 0; start < registrations.length; start += ROWS_PER_INSERT)
      await pool.query('INSERT INTO devices (token, uin, platform, account_id, registered_at) VALUES ?', [
        registrations
          .slice(start, start + ROWS_PER_INSERT)
          .map((r) => [r.token, r.uin, r.platform, r.accountId ?? null, now]),
      ]);
  } finally {
    await pool.end();
  }
}
