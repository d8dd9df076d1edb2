import {
  checkSourceBatchSize,
  type AudienceBatch,
  type AudienceReadOptions,
  type AudienceSource,
} from '@herald/core/ports';
import {
  checkTableSourceSpec,
  type TableCondition,
  type TableSourceSpec,
  type TableValue,
} from '@herald/core/audience';
import { ValidationError } from '@herald/core';
import type { Pool, RowDataPacket } from 'mysql2/promise';
import { openPool, PoolCalls } from './pool';
import { quoteIdentifier, type MySqlTaskStoreOptions } from './connection';

const STORE = 'MySqlTableSources';
const INTEGER_TYPES = new Set(['tinyint', 'smallint', 'mediumint', 'int', 'integer', 'bigint']);

function quoteTable(table: string): string {
  return table.split('.').map(quoteIdentifier).join('.');
}

/** The conditions as SQL with placeholders, and their values: identifiers checked and quoted, values never in the text. */
function whereClause(conditions: readonly TableCondition[]): { sql: string; values: TableValue[] } {
  const parts: string[] = [];
  const values: TableValue[] = [];
  for (const condition of conditions) {
    const column = quoteIdentifier(condition.column);
    switch (condition.op) {
      case 'is null':
        parts.push(`${column} IS NULL`);
        break;
      case 'is not null':
        parts.push(`${column} IS NOT NULL`);
        break;
      case 'in': {
        const list = condition.value as TableValue[];
        parts.push(`${column} IN (${list.map(() => '?').join(', ')})`);
        values.push(...list);
        break;
      }
      default:
        parts.push(`${column} ${condition.op} ?`);
        values.push(condition.value as TableValue);
    }
  }
  return { sql: parts.length === 0 ? '' : ` AND ${parts.join(' AND ')}`, values };
}

/**
 * The `table` audience source (admin only: it reads any table Herald's MySQL
 * user may read, so grant that user SELECT on what admins may use and no
 * more): the distinct values of an integer column, rows filtered by typed
 * conditions, streamed by keyset pagination over that column:
 *
 *   SELECT col FROM tbl WHERE col >= 0 AND col < :uinLimit AND <conditions> AND col > :last ORDER BY col LIMIT :page
 *
 * so every page is an index range (index the column), ascending, with no
 * OFFSET; duplicates of a value are folded into one uin. Identifiers are
 * checked by core (checkTableSourceSpec) and quoted; every value is a
 * placeholder. Rows that give no uin are counted once the stream ends, by
 * reason (`null`, `negative`, `out_of_range`), in one aggregate query under
 * the same conditions.
 *
 * Before the first page, information_schema must show the table, an
 * integer uin column (so its order is the uins' numeric order) and every
 * condition's column: else a ValidationError naming the field. Any later
 * failure (a dropped table, a lost connection) is typed (UNAVAILABLE for an
 * outage, INTERNAL otherwise) and importFromSource discards the list.
 */
export class MySqlTableSources {
  private readonly calls: PoolCalls;

  private constructor(pool: Pool) {
    this.calls = new PoolCalls(STORE, pool);
  }

  /** Connects to `options.database` (no migration needed: the tables are the caller's). */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlTableSources> {
    return new MySqlTableSources(await openPool(options, false));
  }

  /** A source over `spec` (checked now: a bad description throws ValidationError here). */
  source(spec: TableSourceSpec, options: { batchSize?: number } = {}): AudienceSource {
    const checked = checkTableSourceSpec(spec);
    const batchSize = checkSourceBatchSize(options.batchSize);
    return {
      kind: 'table',
      description: { ...checked },
      read: (readOptions) => this.readTable(checked, batchSize, readOptions),
    };
  }

  private async *readTable(
    spec: TableSourceSpec,
    batchSize: number,
    { uinLimit, signal }: AudienceReadOptions,
  ): AsyncGenerator<AudienceBatch> {
    await this.checkColumns(spec);
    const table = quoteTable(spec.table);
    const column = quoteIdentifier(spec.column);
    const where = whereClause(spec.where ?? []);
    let after: number | undefined;
    for (;;) {
      signal?.throwIfAborted();
      const rows = await this.query(
        'read',
        `SELECT ${column} AS uin FROM ${table} WHERE ${column} >= 0 AND ${column} < ?${where.sql}${after === undefined ? '' : ` AND ${column} > ?`} ORDER BY ${column} LIMIT ?`,
        [uinLimit, ...where.values, ...(after === undefined ? [] : [after]), batchSize],
      );
      const uins = new Uint32Array(rows.length);
      let n = 0;
      for (const row of rows) {
        const uin = Number(row.uin);
        if (n === 0 || uins[n - 1] !== uin) uins[n++] = uin;
      }
      if (n > 0) yield { uins: uins.subarray(0, n) };
      if (rows.length < batchSize) break;
      after = Number(rows[rows.length - 1]!.uin);
    }
    signal?.throwIfAborted();
    const [counts] = await this.query(
      'count bad rows',
      `SELECT SUM(${column} IS NULL) AS nulls, SUM(${column} < 0) AS negative, SUM(${column} >= ?) AS out_of_range FROM ${table} WHERE TRUE${where.sql}`,
      [uinLimit, ...where.values],
    );
    const bad: AudienceBatch['bad'] = {};
    if (Number(counts?.nulls ?? 0) > 0) bad.null = Number(counts!.nulls);
    if (Number(counts?.negative ?? 0) > 0) bad.negative = Number(counts!.negative);
    if (Number(counts?.out_of_range ?? 0) > 0) bad.out_of_range = Number(counts!.out_of_range);
    if (Object.keys(bad).length > 0) yield { uins: new Uint32Array(0), bad };
  }

  /** The table exists, the uin column holds integers, the conditions' columns exist; else a ValidationError naming the field. */
  private async checkColumns(spec: TableSourceSpec): Promise<void> {
    const [schema, name] = spec.table.includes('.') ? spec.table.split('.') : [null, spec.table];
    const rows = await this.query(
      'check columns',
      'SELECT COLUMN_NAME AS name, DATA_TYPE AS type FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = COALESCE(?, DATABASE()) AND TABLE_NAME = ?',
      [schema, name],
    );
    if (rows.length === 0)
      throw new ValidationError(`table ${spec.table} does not exist (or Herald's MySQL user may not read it)`, {
        field: 'table',
        table: spec.table,
      });
    // Column names are case-insensitive in MySQL.
    const types = new Map(rows.map((r) => [String(r.name).toLowerCase(), String(r.type).toLowerCase()]));
    const type = types.get(spec.column.toLowerCase());
    if (type === undefined)
      throw new ValidationError(`table ${spec.table} has no column ${spec.column}`, {
        field: 'column',
        table: spec.table,
        column: spec.column,
      });
    if (!INTEGER_TYPES.has(type))
      throw new ValidationError(
        `column ${spec.column} of ${spec.table} is ${type}: the uin column must be an integer type`,
        { field: 'column', type },
      );
    (spec.where ?? []).forEach((condition, i) => {
      if (!types.has(condition.column.toLowerCase()))
        throw new ValidationError(`table ${spec.table} has no column ${condition.column}`, {
          field: `where[${i}].column`,
          table: spec.table,
          column: condition.column,
        });
    });
  }

  private query(op: string, sql: string, values: unknown[]): Promise<RowDataPacket[]> {
    return this.calls.run(op, async (pool) => {
      const [rows] = await pool.query<RowDataPacket[]>(sql, values);
      return rows;
    });
  }

  /** Waits for reads in flight, then closes the pool; a second close is a no-op. */
  close(): Promise<void> {
    return this.calls.close();
  }
}
