import { AbstractFrequencyCounter } from '@herald/core/adapter';
import { ConfigError } from '@herald/core';
import { uniqueSorted } from '@herald/core/uins';
import type { FrequencyUse } from '@herald/core/ports';
import type { Pool, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type { MySqlTaskStoreOptions } from './connection';
import { isDeadlock, toHeraldError } from './mysql-errors';
import { openPool } from './pool';

const STORE = 'MySqlFrequencyCounter';
/** Rows per INSERT: 3 numbers each, far below max_allowed_packet and the placeholder limit. */
const INSERT_ROWS = 5000;
/** Distinct uins per SELECT. */
const READ_UINS = 4096;
/** A chunk whose uins span at most this many times their number is read as one BETWEEN range, else by IN. */
const DENSE_SPAN = 8;
/** Rows per DELETE of an old day: short statements, so pruning never holds locks long. */
const PRUNE_ROWS = 10_000;
const DEADLOCK_ATTEMPTS = 5;

export interface MySqlFrequencyCounterOptions extends MySqlTaskStoreOptions {
  /**
   * Days kept, counting the newest day consumed, 1..366; older days are
   * deleted, and a late use of one of them is dropped.
   * @defaultValue 3 (users in their own zones span up to three local days at one instant, -12:00 to +14:00)
   */
  retainDays?: number;
}

export const DEFAULT_RETAIN_DAYS = 3;

/**
 * The production FrequencyCounter (docs/frequency.md), on MySQL/MariaDB: the
 * `frequency_uses` table of migrations/009_frequency.sql, in the task store's
 * database, so every dispatcher and executor of the cluster shares the same
 * counts. It passes the same conformance suite as LevelFrequencyCounter.
 *
 * One row per (day, uin, task_id), the primary key: consuming is INSERT
 * IGNORE (idempotent by construction, no read-modify-write, so concurrent
 * processes lose nothing; rows go in key order, so two overlapping inserts
 * take their locks in the same order, and the rare deadlock is retried), and
 * a count is COUNT(*) over a user's range of the clustered index. A sorted
 * batch is read in chunks: a dense chunk as one `uin BETWEEN first AND last`
 * range, a sparse one by `uin IN (...)`, one round trip each.
 *
 * Retention: like the Level adapter, the newest `retainDays` days consumed
 * (as this process has seen them: the newest day in the table at open, then
 * every consume) are kept. When a consume brings a newer day, older days are
 * deleted in the background in bounded chunks; a use for a day already
 * outside the retention is dropped. Callers pass `dayOf(policy, now)`.
 */
export class MySqlFrequencyCounter extends AbstractFrequencyCounter {
  private pruning: Promise<void> | undefined;

  private constructor(
    private readonly pool: Pool,
    readonly retainDays: number,
    /** The newest day consumed (-1: none): the table's at open, then this process's. */
    private newestDay: number,
    options: MySqlFrequencyCounterOptions,
  ) {
    super({ name: STORE, translate: (error, op) => toHeraldError(error, op, STORE), retry: options.retry });
  }

  /** Connects to a migrated database (009_frequency.sql applied). Fails like MySqlTaskStore.open, naming `mysql.url` or `mysql.database`. */
  static async open(options: MySqlFrequencyCounterOptions): Promise<MySqlFrequencyCounter> {
    const retainDays = options.retainDays ?? DEFAULT_RETAIN_DAYS;
    if (!Number.isInteger(retainDays) || retainDays < 1 || retainDays > 366)
      throw new ConfigError('retainDays', `must be an integer in 1..366, got ${retainDays}`);
    const pool = await openPool(options);
    try {
      const [rows] = await pool.query<RowDataPacket[]>('SELECT MAX(day) AS newest FROM frequency_uses');
      const newest: unknown = rows[0]?.newest;
      return new MySqlFrequencyCounter(
        pool,
        retainDays,
        newest === null || newest === undefined ? -1 : Number(newest),
        options,
      );
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw toHeraldError(error, 'open', STORE);
    }
  }

  /** Checked, sorted, non-empty uins (AbstractFrequencyCounter). */
  protected async _used(sortedUins: Uint32Array, day: number): Promise<Uint32Array> {
    const counts = new Uint32Array(sortedUins.length);
    if (day < this.oldestKeptDay()) return counts;
    const distinct = uniqueSorted(sortedUins.slice());
    const found = new Map<number, number>();
    for (let start = 0; start < distinct.length; start += READ_UINS) {
      const chunk = distinct.subarray(start, start + READ_UINS);
      const first = chunk[0]!;
      const last = chunk[chunk.length - 1]!;
      const dense = last - first < DENSE_SPAN * chunk.length;
      const [rows] = dense
        ? await this.pool.query<RowDataPacket[]>(
            'SELECT uin, COUNT(*) AS n FROM frequency_uses WHERE day = ? AND uin BETWEEN ? AND ? GROUP BY uin',
            [day, first, last],
          )
        : await this.pool.query<RowDataPacket[]>(
            'SELECT uin, COUNT(*) AS n FROM frequency_uses WHERE day = ? AND uin IN (?) GROUP BY uin',
            [day, [...chunk]],
          );
      for (const row of rows) found.set(Number(row.uin), Number(row.n));
    }
    for (let i = 0; i < sortedUins.length; i++) counts[i] = found.get(sortedUins[i]!) ?? 0;
    return counts;
  }

  /** INSERT IGNORE: idempotent by its primary key, so the base may repeat it through an outage. */
  protected async _consume(uses: readonly FrequencyUse[]): Promise<void> {
    const newest = uses.reduce((max, use) => (use.uins.length > 0 ? Math.max(max, use.day) : max), this.newestDay);
    const oldestKept = newest - this.retainDays + 1;
    const rows: [number, number, number][] = [];
    for (const use of uses) {
      if (use.day < oldestKept) continue; // a late report for a day no one asks about any more
      for (const uin of uniqueSorted(use.uins.slice())) rows.push([use.day, uin, use.taskId]);
    }
    rows.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    for (let start = 0; start < rows.length; start += INSERT_ROWS)
      await this.insert(rows.slice(start, start + INSERT_ROWS));
    if (newest > this.newestDay) {
      this.newestDay = newest;
      this.prune();
    }
  }

  /** After the calls in flight: waits for a prune under way (it stops at close), then ends the pool. */
  protected async _close(): Promise<void> {
    await this.pruning?.catch(() => undefined);
    await this.pool.end();
  }

  private oldestKeptDay(): number {
    return this.newestDay - this.retainDays + 1;
  }

  /** One INSERT IGNORE; a deadlock (overlapping inserts of other processes) is tried again: the statement is idempotent. */
  private async insert(rows: [number, number, number][]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.pool.query('INSERT IGNORE INTO frequency_uses (day, uin, task_id) VALUES ?', [rows]);
        return;
      } catch (error) {
        if (!isDeadlock(error) || attempt >= DEADLOCK_ATTEMPTS) throw error;
      }
    }
  }

  /**
   * Deletes the days before the oldest kept, a bounded chunk at a time, in
   * the background; stops at close. A failure leaves the rows for the next
   * newer day's prune: old rows cost space, never a wrong count (nobody asks
   * about a day outside the retention).
   */
  private prune(): void {
    if (this.pruning !== undefined || this.life.closed) return;
    const before = this.oldestKeptDay();
    this.pruning = this.deleteDaysBefore(before)
      .catch(() => undefined) // left for the next prune; see above
      .finally(() => {
        this.pruning = undefined;
        if (this.oldestKeptDay() > before) this.prune(); // a newer day came meanwhile
      });
  }

  private async deleteDaysBefore(day: number): Promise<void> {
    while (!this.life.closed) {
      const [result] = await this.pool.query<ResultSetHeader>(
        'DELETE FROM frequency_uses WHERE day < ? ORDER BY day, uin, task_id LIMIT ?',
        [day, PRUNE_ROWS],
      );
      if (result.affectedRows < PRUNE_ROWS) return;
    }
  }
}
