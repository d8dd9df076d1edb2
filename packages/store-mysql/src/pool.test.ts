import type { RowDataPacket } from 'mysql2/promise';
import { waitFor } from '@herald/testing';
import { migrate } from './migrate';
import { openPool } from './pool';
import { dropDatabase, rawConnection, TEST_MYSQL_URL, uniqueDatabase } from './test-databases';

/** Waits until the server has `n` connections open on `database` (a closed pool's may take a moment to go). */
async function expectConnections(database: string, n: number): Promise<void> {
  await waitFor(async () => (await connectionsOn(database)) === n, {
    timeoutMs: 10_000,
    intervalMs: 50,
    message: `${n} connections on ${database}`,
  });
}

/** Connections the server has open on `database`. */
async function connectionsOn(database: string): Promise<number> {
  const conn = await rawConnection();
  try {
    const [rows] = await conn.query<RowDataPacket[]>(
      'SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE DB = ?',
      [database],
    );
    return Number(rows[0]!.n);
  } finally {
    await conn.end();
  }
}

describe('openPool warmConnections', () => {
  let database: string;
  beforeEach(async () => {
    database = uniqueDatabase();
    await migrate(TEST_MYSQL_URL, { database });
  });
  afterEach(async () => {
    await dropDatabase(database);
  });

  it('opens that many connections before it returns, and keeps them', async () => {
    const pool = await openPool({ url: TEST_MYSQL_URL, database, poolSize: 4, warmConnections: 3 });
    try {
      await expectConnections(database, 3);
    } finally {
      await pool.end();
    }
  });

  it('opens one, the migrations check, by default, and never more than the pool size', async () => {
    const one = await openPool({ url: TEST_MYSQL_URL, database, poolSize: 4 });
    try {
      await expectConnections(database, 1);
    } finally {
      await one.end();
    }
    await expectConnections(database, 0);
    // Past the pool size, the extra getConnection calls would wait forever: capped, the open returns.
    const capped = await openPool({ url: TEST_MYSQL_URL, database, poolSize: 2, warmConnections: 5 });
    try {
      await expectConnections(database, 2);
    } finally {
      await capped.end();
    }
  });
});
