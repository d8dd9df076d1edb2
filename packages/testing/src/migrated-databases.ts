import { randomBytes } from 'node:crypto';

/**
 * Migrated MySQL databases that the tests of one suite take turns on, each
 * handed out as it was just after its migration.
 *
 * Why: creating and migrating a database costs some 110 ms on an idle
 * 2-core machine (20 migrations of DDL, each statement a file operation and
 * a flush) and several times that under CI's load; a conformance suite
 * that did it for each of its hundreds of tests spent most of its time
 * there. Putting a used database back costs a few milliseconds: one query
 * finds the tables a test wrote to (rows, or an AUTO_INCREMENT moved on),
 * only those are emptied (TRUNCATE, with foreign-key checks off for the
 * session so the order does not matter; it also rewinds AUTO_INCREMENT),
 * and the rows the migrations themselves inserted (checkpoints, counters,
 * schema_migrations) are put back from a copy taken after the migration.
 *
 * A test still gets a database no other test is using: a database is
 * handed to one caller at a time, and a suite that needs two at once gets
 * two. A test that changed the schema (a column, an index, a trigger, a
 * table dropped or added) does not leave it behind: its database is
 * dropped and a fresh one migrated instead. A test that must see what
 * `migrate` does to an empty database should create its own.
 *
 * The helper owns no driver: the caller passes how to connect and how to
 * migrate (store-mysql's test-databases and migrate), so this package does
 * not depend on mysql2.
 *
 * @example
 *   const databases = useMigratedDatabases({ connect: rawConnection, migrate: (db) => migrate(URL_, { database: db }) });
 *   taskStoreConformance('MySqlTaskStore', async () => {
 *     const db = await databases.acquire();
 *     return { store: await MySqlTaskStore.open({ url: URL_, database: db.name }), cleanup: db.release };
 *   });
 */

/** What the helper needs of a connection; mysql2/promise's Connection is one. */
export interface SqlConnection {
  query(sql: string, values?: unknown[]): Promise<[unknown, unknown]>;
  end(): Promise<void>;
}

export interface MigratedDatabasesOptions {
  /** A connection to the server, or to `database` when one is given. */
  connect(database?: string): Promise<SqlConnection>;
  /** Creates `database` and brings it to the latest schema. */
  migrate(database: string): Promise<unknown>;
  /** Names start with this; the default, `herald_test_`, is what stray-database cleanups look for. */
  prefix?: string;
}

/** One database lent to one caller: the name to open a store on, and how to give it back. */
export interface LentDatabase {
  readonly name: string;
  /** Returns the database for the next caller (who gets it reset). Call it once the stores on it are closed. */
  release(): Promise<void>;
}

/** How a database looked right after its migration. */
interface Pristine {
  /** Table name -> AUTO_INCREMENT (null for a table without one). */
  autoIncrement: Map<string, number | null>;
  /** Tables the migrations put rows in; a copy of each is in the seed database. */
  seeded: string[];
  /** The schema, as one comparable string. */
  schema: string;
}

interface Database {
  name: string;
  /** `<name>_seed`: the migrations' own rows. */
  seed: string;
  pristine: Pristine;
}

export class MigratedDatabases {
  private readonly free: Database[] = [];
  private readonly all = new Set<Database>();
  private readonly prefix: string;

  constructor(private readonly options: MigratedDatabasesOptions) {
    this.prefix = options.prefix ?? 'herald_test_';
  }

  /** A database in its just-migrated state, lent to the caller alone until it releases it. */
  async acquire(): Promise<LentDatabase> {
    let db = this.free.pop();
    if (db !== undefined && !(await this.reset(db))) {
      await this.drop(db);
      db = undefined;
    }
    db ??= await this.create();
    let released = false;
    return {
      name: db.name,
      release: async () => {
        if (released) return;
        released = true;
        this.free.push(db);
      },
    };
  }

  /** Drops every database this object created, lent or not. */
  async dropAll(): Promise<void> {
    const dbs = [...this.all];
    this.free.length = 0;
    for (const db of dbs) await this.drop(db);
  }

  private async create(): Promise<Database> {
    const name = `${this.prefix}${randomBytes(8).toString('hex')}`;
    const db: Database = {
      name,
      seed: `${name}_seed`,
      pristine: { autoIncrement: new Map(), seeded: [], schema: '' },
    };
    this.all.add(db);
    await this.options.migrate(name);
    const conn = await this.options.connect(name);
    try {
      const tables = await autoIncrements(conn, name);
      const seeded = await nonEmpty(conn, name, [...tables.keys()]);
      await conn.query(`CREATE DATABASE \`${db.seed}\``);
      for (const table of seeded) {
        await conn.query(`CREATE TABLE \`${db.seed}\`.\`${table}\` LIKE \`${table}\``);
        await conn.query(`INSERT INTO \`${db.seed}\`.\`${table}\` SELECT * FROM \`${table}\``);
      }
      db.pristine = { autoIncrement: tables, seeded, schema: await schemaOf(conn, name) };
    } finally {
      await conn.end();
    }
    return db;
  }

  /** Puts a lent and returned `db` back as it was after its migration; false when its schema has changed (then it must go). */
  private async reset(db: Database): Promise<boolean> {
    const conn = await this.options.connect(db.name);
    try {
      if ((await schemaOf(conn, db.name)) !== db.pristine.schema) return false;
      // A connection a test left open in a transaction would hold a TRUNCATE for the server's default year.
      await conn.query('SET SESSION lock_wait_timeout = 30');
      await conn.query('SET SESSION foreign_key_checks = 0');
      const seeded = new Set(db.pristine.seeded);
      const others = [...db.pristine.autoIncrement.keys()].filter((table) => !seeded.has(table));
      const written = new Set(await nonEmpty(conn, db.name, others));
      for (const [table, value] of await autoIncrements(conn, db.name)) {
        if (!seeded.has(table) && value !== db.pristine.autoIncrement.get(table)) written.add(table);
      }
      for (const table of written) await conn.query(`TRUNCATE TABLE \`${table}\``);
      for (const table of seeded) {
        await conn.query(`TRUNCATE TABLE \`${table}\``);
        await conn.query(`INSERT INTO \`${table}\` SELECT * FROM \`${db.seed}\`.\`${table}\``);
      }
      // A trigger on a seeded table could have written elsewhere while its rows went back.
      const leftover = await nonEmpty(conn, db.name, others);
      if (leftover.length > 0) {
        throw new Error(`migrated-databases: ${db.name}: rows in ${leftover.join(', ')} after the reset`);
      }
      return true;
    } finally {
      await conn.end();
    }
  }

  private async drop(db: Database): Promise<void> {
    this.all.delete(db);
    const conn = await this.options.connect();
    try {
      await conn.query(`DROP DATABASE IF EXISTS \`${db.name}\``);
      await conn.query(`DROP DATABASE IF EXISTS \`${db.seed}\``);
    } finally {
      await conn.end();
    }
  }
}

/**
 * A MigratedDatabases for the calling suite: its databases are dropped in
 * the suite's afterAll. Call it at the top of a test file or a describe.
 */
export function useMigratedDatabases(options: MigratedDatabasesOptions): MigratedDatabases {
  const databases = new MigratedDatabases(options);
  afterAll(() => databases.dropAll());
  return databases;
}

async function rows(conn: SqlConnection, sql: string, values: unknown[]): Promise<Record<string, unknown>[]> {
  const [result] = await conn.query(sql, values);
  return result as Record<string, unknown>[];
}

/** Every base table of `database`, with its AUTO_INCREMENT (null when it has none). */
async function autoIncrements(conn: SqlConnection, database: string): Promise<Map<string, number | null>> {
  const found = await rows(
    conn,
    `SELECT table_name AS name, auto_increment AS value FROM information_schema.tables
      WHERE table_schema = ? AND table_type = 'BASE TABLE'`,
    [database],
  );
  return new Map(found.map((r) => [String(r.name), r.value === null ? null : Number(r.value)]));
}

/** Those of `tables` that hold a row, in one round trip. */
async function nonEmpty(conn: SqlConnection, database: string, tables: readonly string[]): Promise<string[]> {
  if (tables.length === 0) return [];
  const probes = tables.map(
    (table) => `SELECT ? AS name FROM DUAL WHERE EXISTS (SELECT 1 FROM \`${database}\`.\`${table}\`)`,
  );
  return (await rows(conn, probes.join(' UNION ALL '), [...tables])).map((r) => String(r.name));
}

/** Columns, indexes and triggers of `database`, as one string to compare. */
async function schemaOf(conn: SqlConnection, database: string): Promise<string> {
  const columns = await rows(
    conn,
    `SELECT table_name, column_name, column_type, is_nullable, column_default, extra
       FROM information_schema.columns WHERE table_schema = ? ORDER BY table_name, ordinal_position`,
    [database],
  );
  const indexes = await rows(
    conn,
    `SELECT table_name, index_name, column_name, non_unique, seq_in_index
       FROM information_schema.statistics WHERE table_schema = ? ORDER BY table_name, index_name, seq_in_index`,
    [database],
  );
  const triggers = await rows(
    conn,
    `SELECT trigger_name, event_object_table, action_timing, event_manipulation, action_statement
       FROM information_schema.triggers WHERE trigger_schema = ? ORDER BY trigger_name`,
    [database],
  );
  return JSON.stringify([columns, indexes, triggers]);
}
