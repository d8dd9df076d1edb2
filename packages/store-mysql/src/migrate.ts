import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ConfigError, ErrorCodes, HeraldError, isHeraldError } from '@herald/core';
import { createConnection, type Connection, type Pool, type RowDataPacket } from 'mysql2/promise';
import { checkDatabaseName, connectionOptions, parseMySqlUrl, quoteIdentifier } from './connection';
import { connectError, isConnectionError, mysqlCode } from './mysql-errors';
import { splitSql } from './sql-split';
import type { MySqlTlsMaterial } from './tls';

/**
 * Versioned schema migrations: `migrations/NNN_name.sql` in this package,
 * applied in version order, each once, recorded in `schema_migrations`
 * (version, name, checksum, applied_at). Files are read at run time from the
 * package directory, next to the compiled `dist/`.
 */
export const MIGRATIONS_DIR = join(__dirname, '..', 'migrations');

/** The name of the server-wide lock migrators hold while they work (GET_LOCK). */
export const MIGRATION_LOCK = 'herald_migrate';

export interface Migration {
  version: number;
  /** The file name, e.g. `002_outbox.sql`. */
  name: string;
  sql: string;
  /** SHA-256 of the file, hex. */
  checksum: string;
}

export interface MigrateOptions {
  /** The database to migrate (`mysql.database`); created (utf8mb4, nopad binary collation) if missing. */
  database: string;
  /**
   * How long to wait for another migrator to finish.
   * @defaultValue 60000
   */
  lockTimeoutMs?: number;
  /**
   * Where the migration files are.
   * @defaultValue this package's `migrations/`
   */
  migrationsDir?: string;
  /** TLS to the server when `target` is a URL (`mysql.tls`). @defaultValue none */
  tls?: MySqlTlsMaterial;
}

export interface MigrateResult {
  database: string;
  /** File names of the migrations this call applied, in order; empty when the schema was current. */
  applied: string[];
  /** File names of every migration now recorded as applied. */
  current: string[];
}

const FILE_NAME = /^(\d{3,})_([a-z0-9_]+)\.sql$/;

/** Reads and orders the migration files; a malformed name or a repeated version is a MIGRATION_FAILED error. */
export async function loadMigrations(dir: string = MIGRATIONS_DIR): Promise<Migration[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((name) => name.endsWith('.sql'));
  } catch (error) {
    throw new HeraldError(ErrorCodes.MIGRATION_FAILED, `cannot read the migrations directory ${dir}`, {
      cause: error,
      details: { dir },
    });
  }
  const migrations: Migration[] = [];
  for (const name of names) {
    const match = FILE_NAME.exec(name);
    if (match === null)
      throw new HeraldError(ErrorCodes.MIGRATION_FAILED, `migration file ${name} is not named NNN_name.sql`, {
        details: { name },
      });
    const text = await readFile(join(dir, name));
    migrations.push({
      version: Number(match[1]),
      name,
      sql: text.toString('utf8'),
      checksum: createHash('sha256').update(text).digest('hex'),
    });
  }
  migrations.sort((a, b) => a.version - b.version);
  for (let i = 1; i < migrations.length; i++) {
    if (migrations[i]!.version === migrations[i - 1]!.version) {
      throw new HeraldError(
        ErrorCodes.MIGRATION_FAILED,
        `migrations ${migrations[i - 1]!.name} and ${migrations[i]!.name} share version ${migrations[i]!.version}`,
      );
    }
  }
  return migrations;
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

/**
 * Compares the applied migrations with the files. A file whose checksum (or
 * name) differs from what was applied under its version fails with
 * MIGRATION_FAILED: an applied migration must never be edited, only followed
 * by a new one. Returns the files not applied yet, in order. Versions applied
 * but unknown to these files (a newer release migrated first) are ignored.
 */
export function pendingMigrations(files: readonly Migration[], applied: readonly AppliedMigration[]): Migration[] {
  const byVersion = new Map(applied.map((a) => [a.version, a]));
  const pending: Migration[] = [];
  for (const file of files) {
    const done = byVersion.get(file.version);
    if (done === undefined) {
      pending.push(file);
    } else if (done.checksum !== file.checksum || done.name !== file.name) {
      throw new HeraldError(
        ErrorCodes.MIGRATION_FAILED,
        `migration ${file.name} differs from the ${done.name} applied as version ${file.version} (checksum ${done.checksum.slice(0, 12)}.. then, ${file.checksum.slice(0, 12)}.. now): restore the file and add a new migration instead`,
        {
          details: {
            version: file.version,
            name: file.name,
            appliedName: done.name,
            appliedChecksum: done.checksum,
            fileChecksum: file.checksum,
          },
        },
      );
    }
  }
  return pending;
}

const CREATE_SCHEMA_MIGRATIONS = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version    INT UNSIGNED NOT NULL,
  name       VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin NOT NULL,
  checksum   CHAR(64) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  applied_at DATETIME(3) NOT NULL,
  PRIMARY KEY (version)
) ENGINE = InnoDB`;

export async function readApplied(conn: Pick<Connection, 'query'>): Promise<AppliedMigration[]> {
  const [rows] = await conn.query<RowDataPacket[]>(
    'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
  );
  return rows.map((r) => ({ version: Number(r.version), name: String(r.name), checksum: String(r.checksum) }));
}

/**
 * Brings `database` up to date: creates it if missing, then, holding
 * GET_LOCK('herald_migrate') so that concurrent migrators run one after the
 * other, applies every pending migration in order and records it. Running it
 * again applies nothing. Refuses (MIGRATION_FAILED, nothing applied) when an
 * applied migration's file has changed.
 *
 * MariaDB commits each DDL statement by itself, so a migration that fails
 * half way is not rolled back; it is not recorded either, and the files are
 * written to be re-runnable (IF NOT EXISTS, INSERT IGNORE), so fixing the
 * cause and running migrate again finishes it.
 *
 * `target` is a `mysql://` URL (`mysql.url`) or a mysql2 promise pool; with a
 * pool, one of its connections is used and then destroyed (it was switched to
 * `database`).
 *
 * @example
 *   const { applied } = await migrate('mysql://root@127.0.0.1:3306', { database: 'herald' });
 */
export async function migrate(target: Pool | string, options: MigrateOptions): Promise<MigrateResult> {
  const database = checkDatabaseName(options.database);
  const lockTimeoutMs = options.lockTimeoutMs ?? 60_000;
  if (!Number.isFinite(lockTimeoutMs) || lockTimeoutMs < 0)
    throw new ConfigError('lockTimeoutMs', 'must be a non-negative number of ms');
  const files = await loadMigrations(options.migrationsDir);

  let conn: Connection;
  let done: () => Promise<void>;
  if (typeof target === 'string') {
    const url = parseMySqlUrl(target);
    try {
      conn = await createConnection(connectionOptions(url, undefined, options.tls));
    } catch (error) {
      throw connectError(error, url, database);
    }
    done = () => conn.end();
  } else {
    const pooled = await target.getConnection();
    conn = pooled;
    done = async () => pooled.destroy();
  }

  try {
    await conn.query(
      `CREATE DATABASE IF NOT EXISTS ${quoteIdentifier(database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_nopad_bin`,
    );
    await conn.query(`USE ${quoteIdentifier(database)}`);
    const [[lock]] = await conn.query<RowDataPacket[]>('SELECT GET_LOCK(?, ?) AS got', [
      MIGRATION_LOCK,
      lockTimeoutMs / 1000,
    ]);
    if (lock?.got !== 1) {
      throw new HeraldError(
        ErrorCodes.MIGRATION_FAILED,
        `another migrator held '${MIGRATION_LOCK}' for more than ${lockTimeoutMs} ms; try again`,
        {
          retriable: true,
          details: { database },
        },
      );
    }
    try {
      await conn.query(CREATE_SCHEMA_MIGRATIONS);
      const pending = pendingMigrations(files, await readApplied(conn));
      for (const migration of pending) await applyMigration(conn, migration);
      const current = (await readApplied(conn)).map((a) => a.name);
      return { database, applied: pending.map((m) => m.name), current };
    } finally {
      await conn.query('SELECT RELEASE_LOCK(?)', [MIGRATION_LOCK]).catch(() => undefined);
    }
  } catch (error) {
    if (isHeraldError(error)) throw error;
    const code = mysqlCode(error);
    if (isConnectionError(error) || code === 'ER_ACCESS_DENIED_ERROR' || code === 'ER_DBACCESS_DENIED_ERROR') {
      throw connectError(error, typeof target === 'string' ? parseMySqlUrl(target) : poolUrl(target), database);
    }
    throw new HeraldError(ErrorCodes.MIGRATION_FAILED, `migrate ${database}: ${(error as Error).message}`, {
      cause: error,
      details: { database, mysqlCode: code },
    });
  } finally {
    await done().catch(() => undefined);
  }
}

async function applyMigration(conn: Connection, migration: Migration): Promise<void> {
  const statements = splitSql(migration.sql);
  for (const [i, statement] of statements.entries()) {
    try {
      await conn.query(statement);
    } catch (error) {
      if (isConnectionError(error)) throw error;
      throw new HeraldError(
        ErrorCodes.MIGRATION_FAILED,
        `migration ${migration.name}, statement ${i + 1} of ${statements.length} failed: ${(error as Error).message}`,
        {
          cause: error,
          details: { version: migration.version, name: migration.name, statement: i + 1, mysqlCode: mysqlCode(error) },
        },
      );
    }
  }
  await conn.query('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, NOW(3))', [
    migration.version,
    migration.name,
    migration.checksum,
  ]);
}

/** The pool's server as a URL, for error messages (no password). */
function poolUrl(pool: Pool): URL {
  const config = (
    pool as unknown as { pool?: { config?: { connectionConfig?: { host?: string; port?: number; user?: string } } } }
  ).pool?.config?.connectionConfig;
  const url = new URL('mysql://pool');
  if (config?.host !== undefined) url.hostname = config.host;
  if (config?.port !== undefined) url.port = String(config.port);
  if (config?.user !== undefined) url.username = encodeURIComponent(config.user);
  return url;
}
