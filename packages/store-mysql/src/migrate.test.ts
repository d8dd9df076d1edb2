import { cp, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCodes } from '@herald/core';
import { freePort, makeTempDir, rejectsWithCode, type TempDir } from '@herald/testing';
import { createPool, type RowDataPacket } from 'mysql2/promise';
import { connectionOptions, parseMySqlUrl } from './connection';
import { loadMigrations, migrate, MIGRATION_LOCK, MIGRATIONS_DIR } from './migrate';
import { dropDatabase, rawConnection, TEST_MYSQL_URL as URL_, uniqueDatabase } from './test-databases';

const ALL = [
  '001_tables.sql',
  '002_outbox.sql',
  '003_live_task_checkpoint.sql',
  '004_access.sql',
  '005_campaigns.sql',
  '006_display_at.sql',
  '007_audiences.sql',
  '008_account_quotas.sql',
  '009_frequency.sql',
  '010_task_speed.sql',
  '011_task_targeting.sql',
  '012_task_progress.sql',
  '013_task_collapse_key.sql',
  '014_task_no_resend_since.sql',
  '015_audit_at.sql',
  '016_campaign_idempotency_manual_runs.sql',
  '017_devices.sql',
  '018_campaign_firing_run_key.sql',
  '019_local_time.sql',
  '020_task_rollout.sql',
];

describe('migration files', () => {
  it('are the package migrations/ next to dist/ and src/, in version order, each with a header comment', async () => {
    expect(MIGRATIONS_DIR).toBe(join(__dirname, '..', 'migrations'));
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.name)).toEqual(ALL);
    expect(migrations.map((m) => m.version)).toEqual(ALL.map((name) => Number(name.slice(0, 3))));
    for (const m of migrations) {
      expect(m.sql.startsWith(`-- ${m.name.replace(/\.sql$/, '')}: `)).toBe(true);
      expect(m.checksum).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('ship with the package', async () => {
    const manifest = JSON.parse(await readFile(join(__dirname, '..', 'package.json'), 'utf8')) as { files: string[] };
    expect(manifest.files).toEqual(expect.arrayContaining(['dist', 'migrations']));
  });
});

describe('migrate', () => {
  let database: string;
  let dir: TempDir | undefined;
  beforeEach(() => {
    database = uniqueDatabase();
    dir = undefined;
  });
  afterEach(async () => {
    await dropDatabase(database);
    await dir?.remove();
  });

  async function applied(): Promise<{ version: number; name: string; checksum: string }[]> {
    const conn = await rawConnection(database);
    try {
      const [rows] = await conn.query<RowDataPacket[]>(
        'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
      );
      return rows.map((r) => ({
        version: r.version as number,
        name: r.name as string,
        checksum: r.checksum as string,
      }));
    } finally {
      await conn.end();
    }
  }

  /** A copy of the package's migrations to edit. */
  async function copyOfMigrations(): Promise<string> {
    dir = await makeTempDir('herald-migrations-');
    await cp(MIGRATIONS_DIR, dir.path, { recursive: true });
    return dir.path;
  }

  it('creates the database, applies every migration in order and records version, name and checksum', async () => {
    const result = await migrate(URL_, { database });
    expect(result).toEqual({ database, applied: ALL, current: ALL });
    const files = await loadMigrations();
    expect(await applied()).toEqual(files.map((f) => ({ version: f.version, name: f.name, checksum: f.checksum })));
    const conn = await rawConnection(database);
    const [tables] = await conn.query<RowDataPacket[]>(
      'SELECT table_name AS t FROM information_schema.tables WHERE table_schema = ?',
      [database],
    );
    const [triggers] = await conn.query<RowDataPacket[]>(
      'SELECT trigger_name AS t FROM information_schema.triggers WHERE trigger_schema = ?',
      [database],
    );
    await conn.end();
    expect(tables.map((r) => String(r.t)).sort()).toEqual([
      'access_tokens',
      'account_reservations',
      'account_settings',
      'accounts',
      'attribute_chunks',
      'audit_log',
      'campaign_firings',
      'campaigns',
      'device_users',
      'devices',
      'execution_units',
      'followers',
      'frequency_uses',
      'recipient_lists',
      'schema_migrations',
      'store_checkpoints',
      'task_events',
      'task_events_writer',
      'task_progress',
      'tasks',
      'user_attributes',
    ]);
    expect(triggers.map((r) => String(r.t)).sort()).toEqual(['tasks_outbox_changed', 'tasks_outbox_created']);
  });

  it('is idempotent: a second run applies nothing and changes nothing', async () => {
    await migrate(URL_, { database });
    const before = await applied();
    expect(await migrate(URL_, { database })).toEqual({ database, applied: [], current: ALL });
    expect(await applied()).toEqual(before);
  });

  it('two concurrent migrators apply each migration once', async () => {
    const [a, b] = await Promise.all([migrate(URL_, { database }), migrate(URL_, { database })]);
    expect([...a.applied, ...b.applied].sort()).toEqual(ALL);
    expect([a.applied, b.applied]).toContainEqual([]);
    expect(a.current).toEqual(ALL);
    expect(b.current).toEqual(ALL);
    expect((await applied()).map((m) => m.name)).toEqual(ALL);
  });

  it('applies only the migrations added since the last run', async () => {
    const path = await copyOfMigrations();
    await migrate(URL_, { database, migrationsDir: path });
    await writeFile(
      join(path, '900_extra.sql'),
      '-- 900_extra: a test migration.\nCREATE TABLE extra (id INT PRIMARY KEY);\nINSERT INTO extra VALUES (1), (2);\n',
    );
    expect((await migrate(URL_, { database, migrationsDir: path })).applied).toEqual(['900_extra.sql']);
    const conn = await rawConnection(database);
    const [rows] = await conn.query<RowDataPacket[]>('SELECT COUNT(*) AS n FROM extra');
    await conn.end();
    expect(Number(rows[0]!.n)).toBe(2);
  });

  it('refuses with MIGRATION_FAILED, applying nothing, when an applied migration file changed', async () => {
    const path = await copyOfMigrations();
    await migrate(URL_, { database, migrationsDir: path });
    const before = await applied();
    await writeFile(
      join(path, '002_outbox.sql'),
      `${await readFile(join(path, '002_outbox.sql'), 'utf8')}\n-- edited after it was applied\n`,
    );
    await writeFile(
      join(path, '900_extra.sql'),
      '-- 900_extra: never applied here.\nCREATE TABLE extra (id INT PRIMARY KEY);\n',
    );
    const error = await rejectsWithCode(migrate(URL_, { database, migrationsDir: path }), ErrorCodes.MIGRATION_FAILED);
    expect(error.details).toMatchObject({ version: 2, name: '002_outbox.sql' });
    expect(error.message).toContain('002_outbox.sql');
    expect(await applied()).toEqual(before);
  });

  it('a failing statement fails MIGRATION_FAILED naming file and statement, records nothing, and a fixed file applies', async () => {
    const path = await copyOfMigrations();
    await writeFile(
      join(path, '900_broken.sql'),
      '-- 900_broken: fails at statement 2.\nCREATE TABLE IF NOT EXISTS ok_table (id INT PRIMARY KEY);\nCREATE TABLEX nope;\n',
    );
    const error = await rejectsWithCode(migrate(URL_, { database, migrationsDir: path }), ErrorCodes.MIGRATION_FAILED);
    expect(error.details).toMatchObject({ version: 900, name: '900_broken.sql', statement: 2 });
    expect((await applied()).map((m) => m.name)).toEqual(ALL);
    await writeFile(
      join(path, '900_broken.sql'),
      '-- 900_broken: fixed.\nCREATE TABLE IF NOT EXISTS ok_table (id INT PRIMARY KEY);\n',
    );
    expect((await migrate(URL_, { database, migrationsDir: path })).applied).toEqual(['900_broken.sql']);
  });

  it('waits for the migration lock and gives up with a retriable MIGRATION_FAILED after lockTimeoutMs', async () => {
    const holder = await rawConnection();
    try {
      const [[got]] = await holder.query<RowDataPacket[]>('SELECT GET_LOCK(?, 10) AS got', [MIGRATION_LOCK]);
      expect(got!.got).toBe(1);
      const error = await rejectsWithCode(migrate(URL_, { database, lockTimeoutMs: 200 }), ErrorCodes.MIGRATION_FAILED);
      expect(error.retriable).toBe(true);
    } finally {
      await holder.end();
    }
    expect((await migrate(URL_, { database })).applied).toEqual(ALL);
  });

  it('accepts a mysql2 pool instead of a URL', async () => {
    const pool = createPool(connectionOptions(parseMySqlUrl(URL_)));
    try {
      expect((await migrate(pool, { database })).applied).toEqual(ALL);
      expect((await migrate(pool, { database })).applied).toEqual([]);
    } finally {
      await pool.end();
    }
  });

  it('fails UNAVAILABLE naming mysql.url when the server is unreachable, and CONFIG_INVALID for a bad database name', async () => {
    const error = await rejectsWithCode(
      migrate(`mysql://root@127.0.0.1:${await freePort()}`, { database }),
      ErrorCodes.UNAVAILABLE,
    );
    expect(error.details).toMatchObject({ setting: 'mysql.url' });
    expect(error.retriable).toBe(true);
    const bad = await rejectsWithCode(
      migrate(URL_, { database: 'x`; DROP DATABASE mysql; --' }),
      ErrorCodes.CONFIG_INVALID,
    );
    expect(bad.details).toMatchObject({ setting: 'mysql.database' });
  });
});
