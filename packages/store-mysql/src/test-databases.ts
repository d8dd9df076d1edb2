import { randomBytes } from 'node:crypto';
import { type MigratedDatabases, useMigratedDatabases } from '@herald/testing';
import { createConnection, type Connection } from 'mysql2/promise';
import { connectionOptions, parseMySqlUrl } from './connection';
import { migrate } from './migrate';

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

/**
 * Migrated databases on TEST_MYSQL_URL that the calling suite's tests take
 * turns on, each handed out as just migrated (@herald/testing's
 * MigratedDatabases: a reset costs milliseconds, a migration a tenth of a
 * second or more per test); dropped after the suite.
 */
export function useSharedDatabases(): MigratedDatabases {
  return useMigratedDatabases({
    connect: (database) => rawConnection(database),
    migrate: (database) => migrate(TEST_MYSQL_URL, { database }),
  });
}
