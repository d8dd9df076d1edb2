import { MigratedDatabases } from '@herald/testing';
import type { RowDataPacket } from 'mysql2/promise';
import { migrate } from './migrate';
import { dropDatabase, rawConnection, TEST_MYSQL_URL as URL_, uniqueDatabase } from './test-databases';

/**
 * @herald/testing's MigratedDatabases against this package's migrations: a
 * database handed out again must be indistinguishable from a freshly
 * migrated one, or the suites sharing them would share state.
 */
const options = {
  connect: (database?: string) => rawConnection(database),
  migrate: (database: string) => migrate(URL_, { database }),
};

/** Every table's rows and AUTO_INCREMENT, in a comparable form. */
async function contents(database: string): Promise<Record<string, unknown>> {
  const conn = await rawConnection(database);
  try {
    const [tables] = await conn.query<RowDataPacket[]>(
      `SELECT table_name AS name, auto_increment AS next FROM information_schema.tables
        WHERE table_schema = ? AND table_type = 'BASE TABLE' ORDER BY table_name`,
      [database],
    );
    const out: Record<string, unknown> = {};
    for (const { name, next } of tables) {
      const [rows] = await conn.query<RowDataPacket[]>(`SELECT * FROM \`${name}\` ORDER BY 1`);
      out[String(name)] = { next, rows: rows.map((r) => ({ ...r })) };
    }
    return out;
  } finally {
    await conn.end();
  }
}

/** contents() without the migrations' applied_at: a database migrated at another moment compares equal. */
async function timeless(database: string): Promise<Record<string, unknown>> {
  const all = await contents(database);
  const migrations = all.schema_migrations as { rows: Record<string, unknown>[] };
  migrations.rows = migrations.rows.map(({ applied_at: _at, ...row }) => row);
  return all;
}

async function exists(database: string): Promise<boolean> {
  const conn = await rawConnection();
  try {
    const [rows] = await conn.query<RowDataPacket[]>(
      'SELECT 1 FROM information_schema.schemata WHERE schema_name = ?',
      [database],
    );
    return rows.length === 1;
  } finally {
    await conn.end();
  }
}

describe('MigratedDatabases (MySQL)', () => {
  const databases = new MigratedDatabases(options);
  const fresh = uniqueDatabase();
  beforeAll(() => migrate(URL_, { database: fresh }));
  afterAll(async () => {
    await databases.dropAll();
    await dropDatabase(fresh);
  });

  it('hands a used database out again just as a fresh migration leaves one: rows, seeded rows, AUTO_INCREMENT', async () => {
    const first = await databases.acquire();
    const pristine = await contents(first.name);
    expect(await timeless(first.name)).toEqual(await timeless(fresh));
    const conn = await rawConnection(first.name);
    await conn.query(
      `INSERT INTO tasks (account_id, list_id, content, content_crc, priority, send_at, expires_at, list_count, state, version, epoch, report, created_at, updated_at)
       SELECT 'a', 'l', '{"body":"b"}', 1, 'normal', 0, 0, 1, 'COMPLETED', 1, 0, '{}', seq, seq FROM seq_1_to_20`,
    );
    await conn.query("UPDATE store_checkpoints SET value = 17 WHERE name = 'live_tasks'");
    await conn.query("DELETE FROM schema_migrations WHERE name = '003_live_task_checkpoint.sql'");
    // A table left empty but with its AUTO_INCREMENT moved on.
    await conn.query("INSERT INTO audit_log (at, token_id, token_name, action, status) VALUES (1, 't', 'n', 'a', 200)");
    await conn.query('DELETE FROM audit_log');
    await conn.end();
    expect(await contents(first.name)).not.toEqual(pristine);
    await first.release();

    const again = await databases.acquire();
    expect(again.name).toBe(first.name);
    expect(await contents(again.name)).toEqual(pristine);
    await again.release();
  });

  it('lends a database to one caller at a time', async () => {
    const a = await databases.acquire();
    const b = await databases.acquire();
    expect(a.name).not.toBe(b.name);
    await a.release();
    await b.release();
  });

  it('replaces a database whose schema a test changed, and drops it', async () => {
    const changed = await databases.acquire();
    const conn = await rawConnection(changed.name);
    await conn.query('ALTER TABLE tasks ADD COLUMN stray INT NULL');
    await conn.end();
    await changed.release();
    const others = [await databases.acquire(), await databases.acquire()];
    expect(others.map((d) => d.name)).not.toContain(changed.name);
    expect(await exists(changed.name)).toBe(false);
    for (const other of others) expect(await timeless(other.name)).toEqual(await timeless(fresh));
    for (const other of others) await other.release();
  });

  it('dropAll leaves no database behind, its seed copies included', async () => {
    const own = new MigratedDatabases(options);
    const lent = await own.acquire();
    expect(await exists(lent.name)).toBe(true);
    expect(await exists(`${lent.name}_seed`)).toBe(true);
    await own.dropAll();
    expect(await exists(lent.name)).toBe(false);
    expect(await exists(`${lent.name}_seed`)).toBe(false);
  });
});
