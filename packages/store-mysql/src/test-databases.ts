import { randomBytes } from 'node:crypto';
import { createConnection, type Connection } from 'mysql2/promise';
import { connectionOptions, parseMySqlUrl } from './connection';

/**
 * Test helpers (excluded from the build): the MariaDB the jest global setup
 * points at, fresh uniquely named databases, and raw connections for looking
 * behind the store's back.
 */
export const TEST_MYSQL_URL = process.env.HERALD_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306';

/** A database name no other test uses: herald_test_<random>. */
export function uniqueDatabase(): string {
  return `herald_test_${randomBytes(8).toString('hex')}`;
}

/** A raw connection, to `database` when given. */
export function rawConnection(database?: string, url: string = TEST_MYSQL_URL): Promise<Connection> {
  return createConnection(connectionOptions(parseMySqlUrl(url), database));
}

export async function dropDatabase(database: string): Promise<void> {
  const conn = await rawConnection();
  try {
    await conn.query(`DROP DATABASE IF EXISTS \`${database}\``);
  } finally {
    await conn.end();
  }
}

export async function createEmptyDatabase(database: string): Promise<void> {
  const conn = await rawConnection();
  try {
    await conn.query(`CREATE DATABASE \`${database}\``);
  } finally {
    await conn.end();
  }
}
