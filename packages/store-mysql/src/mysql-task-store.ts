import { AbstractTaskStore, taskNotFound, unitNotFound } from '@herald/core/adapter';
import {
  checkLimit,
  checkNow,
  isTaskId,
  TASK_QUERY_DEFAULT_LIMIT,
  taskMachine,
  type CompiledTaskQuery,
  type ExecutionUnit,
  type ListMeta,
  type Task,
  type TaskRecordRules,
} from '@herald/core/task';
import type { OutboxEvent, TaskPage } from '@herald/core/ports';
import type { TaskProgressRecord } from '@herald/core/progress';
import type { Pool, PoolConnection, ResultSetHeader, RowDataPacket } from 'mysql2/promise';
import type { MySqlTaskStoreOptions } from './connection';
import { mysqlCode, toHeraldError } from './mysql-errors';
import {
  advanceLiveCheckpoint,
  liveBounds,
  LIVE_STATES,
  LIVE_TASKS_SQL,
  READY_STATES,
  READY_TASKS_SQL,
  shareLockLiveCheckpoint,
} from './live-checkpoint';
import { containsPattern } from './like';
import { inTransaction, openPool } from './pool';
import {
  EVENT_COLUMNS,
  INSERT_TASK,
  insertTaskValues,
  json,
  LIST_COLUMNS,
  TASK_COLUMNS,
  type SqlValue,
  toEvent,
  toList,
  toTask,
  toUnit,
  UNIT_COLUMNS,
  unitValues,
  UPDATE_TASK,
  updateTaskValues,
} from './rows';

/** The longest id, account id, owner or executor id a VARCHAR(255) column holds. */
export const MAX_ID_CHARS = 255;

/**
 * The shared TaskStore record rules (@herald/core), plus what the schema needs:
 * times are BIGINT epoch ms, so they must be safe integers, and ids, owners and
 * account ids are VARCHAR(255), so at most 255 characters.
 */
const RULES: TaskRecordRules = { times: 'integer', maxIdChars: MAX_ID_CHARS, strictShapes: true };

type Rows = RowDataPacket[];

/** A task's title and body as lower-case text for a search's LIKE (a missing title reads as ''). */
const SEARCH_TITLE = "LOWER(COALESCE(JSON_UNQUOTE(JSON_EXTRACT(content, '$.title')), ''))";
const SEARCH_BODY = "LOWER(JSON_UNQUOTE(JSON_EXTRACT(content, '$.body')))";

/**
 * The production TaskStore, on MySQL/MariaDB (mysql2). It passes the same
 * conformance suite as the embedded LevelTaskStore.
 *
 * Schema: migrations/*.sql, applied by `migrate` (`herald migrate`); `open`
 * refuses a database that is not fully migrated.
 *
 * Input checks, fences, state machines and patches are the shared
 * AbstractTaskStore's (@herald/core); this class only reads and writes rows.
 * Writes: every write to a task or its units is one transaction that first
 * locks the task row (SELECT ... FOR UPDATE), runs the base's fence check
 * and update on it, and writes the result. The row lock serialises
 * claims, transitions and unit writes of one task, so a fence check and the
 * write it guards cannot interleave with a new owner's claim. Unit writes lock
 * the task row too but do not rewrite it, so they leave its version alone.
 *
 * The outbox is written by triggers on `tasks` (002_outbox.sql), never by
 * this code: creation and every state change add a task_events row in the
 * same transaction.
 *
 * Live and ready scans are bounded on both sides by a persisted low-water
 * checkpoint (FOQS, 003_live_task_checkpoint.sql): see `listLiveTasks`.
 *
 * Errors: core error classes for contract failures; connection failures,
 * deadlocks and lock wait timeouts are UNAVAILABLE with `retriable: true`
 * (a deadlock victim is first run again, up to three runs in all: pool.ts).
 * With `retry` options, the calls the base marks idempotent also ride out
 * an outage.
 */
export class MySqlTaskStore extends AbstractTaskStore {
  private constructor(
    private readonly pool: Pool,
    options: MySqlTaskStoreOptions,
  ) {
    super({
      name: 'MySqlTaskStore',
      translate: (error, op) => toHeraldError(error, op),
      rules: RULES,
      retry: options.retry,
    });
  }

  /**
   * Connects to a migrated database. Fails with one line naming the setting
   * to fix: `mysql.url` (unreachable: UNAVAILABLE, retriable; bad
   * credentials: CONFIG_INVALID) or `mysql.database` (missing or not
   * migrated: CONFIG_INVALID, "run herald migrate").
   */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlTaskStore> {
    return new MySqlTaskStore(await openPool(options), options);
  }

  protected async _createTask(record: Task): Promise<Task> {
    try {
      return await inTransaction(this.pool, async (conn) => {
        await shareLockLiveCheckpoint(conn); // until commit: see live-checkpoint.ts
        const [result] = await conn.execute<ResultSetHeader>(INSERT_TASK, insertTaskValues(record));
        return { ...record, id: Number(result.insertId) };
      });
    } catch (error) {
      // The idempotency key's unique index refused a second task: answer the first. A concurrent
      // insert of the same key waits for the first to commit, so the row is there to read.
      if (record.idempotencyKey === undefined || mysqlCode(error) !== 'ER_DUP_ENTRY') throw error;
      const existing = await this._getTaskByIdempotencyKey(record.idempotencyKey);
      if (existing === undefined) throw error;
      return existing;
    }
  }

  protected async _getTaskByIdempotencyKey(key: string): Promise<Task | undefined> {
    const [rows] = await this.pool.execute<Rows>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE idempotency_key = ?`, [key]);
    return rows.length === 0 ? undefined : toTask(rows[0]!);
  }

  protected async _getTask(id: number): Promise<Task | undefined> {
    const [rows] = await this.pool.execute<Rows>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ?`, [id]);
    return rows.length === 0 ? undefined : toTask(rows[0]!);
  }

  protected async _listTasks(q: CompiledTaskQuery): Promise<TaskPage> {
    const where = [q.order === 'desc' ? 'id < ?' : 'id > ?'];
    const values: SqlValue[] = [q.order === 'desc' ? (q.beforeId ?? Number.MAX_SAFE_INTEGER) : q.afterId];
    const filters: [string, SqlValue | undefined][] = [
      ['created_at >= ?', q.createdFrom],
      ['created_at < ?', q.createdBefore],
      ['state = ?', q.state],
      ['account_id = ?', q.accountId],
    ];
    for (const [clause, value] of filters) {
      if (value === undefined) continue;
      where.push(clause);
      values.push(value);
    }
    if (q.accountIds !== undefined) {
      where.push(`account_id IN (${q.accountIds.map(() => '?').join(', ')})`);
      values.push(...q.accountIds);
    }
    if (q.search !== undefined) {
      // Lower-cased on both sides, like the embedded store's match; a term of digits also matches the id.
      const pattern = containsPattern(q.search.needle);
      where.push(`(${SEARCH_TITLE} LIKE ? OR ${SEARCH_BODY} LIKE ? OR id = ?)`);
      values.push(pattern, pattern, q.search.id ?? 0);
    }
    // One extra row tells whether a next page exists.
    const [rows] = await this.pool.execute<Rows>(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE ${where.join(' AND ')} ORDER BY id ${q.order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`,
      [...values, q.limit + 1],
    );
    const tasks = rows.slice(0, q.limit).map(toTask);
    return { tasks, nextCursor: rows.length > q.limit ? tasks[tasks.length - 1]!.id : null };
  }

  /**
   * Every live task, ascending id, bounded by the live checkpoint below and
   * MAX(id) read first above (live-checkpoint.ts); the first live id found
   * (or maxId + 1) then becomes the new checkpoint.
   */
  protected async _listLiveTasks(): Promise<Task[]> {
    const { checkpoint, maxId } = await liveBounds(this.pool);
    const [rows] = await this.pool.execute<Rows>(LIVE_TASKS_SQL, [checkpoint, maxId, ...LIVE_STATES]);
    const tasks = rows.map(toTask);
    const lowWater = tasks.length > 0 ? tasks[0]!.id : maxId + 1;
    if (lowWater > checkpoint) await advanceLiveCheckpoint(this.pool, lowWater);
    return tasks;
  }

  /**
   * Tasks waiting for the scheduler, ascending id, at most `limit` (1..1000,
   * default 100): QUEUED and PREEMPTED (waiting for an executor slot) and
   * SCHEDULED whose send time has come (`sendAt <= now`). Bounded by the same
   * checkpoint as listLiveTasks, so it does not slow down as history grows.
   * Not part of the TaskStore port: a MySQL-only read for schedulers that poll.
   */
  listReadyTasks(now: number, limit: number = TASK_QUERY_DEFAULT_LIMIT): Promise<Task[]> {
    return this.life.idempotent('listReadyTasks', async () => {
      checkNow(now, RULES);
      checkLimit(limit);
      const { checkpoint, maxId } = await liveBounds(this.pool);
      const [rows] = await this.pool.execute<Rows>(READY_TASKS_SQL, [checkpoint, maxId, ...READY_STATES, now, limit]);
      return rows.map(toTask);
    });
  }

  protected async _listTasksByContent(accountId: string, contentCrc: number): Promise<Task[]> {
    const [rows] = await this.pool.execute<Rows>(
      `SELECT ${TASK_COLUMNS} FROM tasks WHERE account_id = ? AND content_crc = ? AND filtered_list_id IS NOT NULL ORDER BY id`,
      [accountId, contentCrc],
    );
    return rows.map(toTask);
  }

  /** One transaction under the task's row lock. The outbox event of a state change is the trigger's to write. */
  protected async _updateTask(id: number, update: (task: Task) => Task): Promise<Task> {
    const next = await inTransaction(this.pool, async (conn) => {
      const updated = update(await this.lockTask(conn, id));
      await conn.execute(UPDATE_TASK, updateTaskValues(updated));
      return updated;
    });
    if (taskMachine.isTerminal(next.state)) {
      // An old task finishing may let the live checkpoint move up. The write above is
      // committed either way, and a checkpoint left behind is only slower, never wrong,
      // so a failure here does not fail the write.
      await advanceLiveCheckpoint(this.pool).catch(() => undefined);
    }
    return next;
  }

  protected async _putUnits(
    taskId: number,
    guard: (task: Task, hasUnits: boolean) => void,
    records: readonly ExecutionUnit[],
  ): Promise<void> {
    await inTransaction(this.pool, async (conn) => {
      const task = await this.lockTask(conn, taskId);
      const [existing] = await conn.execute<Rows>('SELECT unit_no FROM execution_units WHERE task_id = ? LIMIT 1', [
        taskId,
      ]);
      guard(task, existing.length > 0);
      if (records.length === 0) return;
      const rows = records.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      await conn.query(`INSERT INTO execution_units (${UNIT_COLUMNS}) VALUES ${rows}`, records.flatMap(unitValues));
    });
  }

  protected async _listUnits(taskId: number): Promise<ExecutionUnit[]> {
    const [rows] = await this.pool.execute<Rows>(
      `SELECT ${UNIT_COLUMNS} FROM execution_units WHERE task_id = ? ORDER BY unit_no`,
      [taskId],
    );
    return rows.map(toUnit);
  }

  /** Under its task's row lock (the lock claims take), so a fence check and its write cannot interleave with a new owner's claim. */
  protected _updateUnit(
    taskId: number,
    unitNo: number,
    guard: (task: Task) => void,
    update: (unit: ExecutionUnit) => ExecutionUnit,
  ): Promise<ExecutionUnit> {
    return inTransaction(this.pool, async (conn) => {
      guard(await this.lockTask(conn, taskId));
      const [rows] = await conn.execute<Rows>(
        `SELECT ${UNIT_COLUMNS} FROM execution_units WHERE task_id = ? AND unit_no = ? FOR UPDATE`,
        [taskId, unitNo],
      );
      if (rows.length === 0) throw unitNotFound(taskId, unitNo);
      const unit = toUnit(rows[0]!);
      const next = update(unit);
      if (next !== unit) {
        await conn.execute(
          'UPDATE execution_units SET executor_id = ?, state = ?, `checkpoint` = ?, delivered = ?, `offline` = ?, updated_at = ? WHERE task_id = ? AND unit_no = ?',
          [next.executorId, next.state, next.checkpoint, next.delivered, next.offline, next.updatedAt, taskId, unitNo],
        );
      }
      return next;
    });
  }

  protected async _readOutbox(afterId: number, limit: number): Promise<OutboxEvent[]> {
    const [rows] = await this.pool.execute<Rows>(
      `SELECT ${EVENT_COLUMNS} FROM task_events WHERE relayed_at IS NULL AND id > ? ORDER BY id LIMIT ?`,
      [afterId, limit],
    );
    return rows.map(toEvent);
  }

  protected async _markRelayed(upToId: number): Promise<void> {
    // relayed_at is the server's clock: an audit column only, never read back by the store.
    await this.pool.execute('UPDATE task_events SET relayed_at = NOW(3) WHERE relayed_at IS NULL AND id <= ?', [
      upToId,
    ]);
  }

  protected async _putList(meta: ListMeta): Promise<void> {
    await this.pool.execute(
      `INSERT INTO recipient_lists (${LIST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), \`count\` = VALUES(\`count\`), checksum = VALUES(checksum),
         is_sorted = VALUES(is_sorted), is_unique = VALUES(is_unique), bytes = VALUES(bytes), created_at = VALUES(created_at)`,
      [
        meta.id,
        meta.accountId,
        meta.count,
        meta.checksum,
        meta.sorted ? 1 : 0,
        meta.unique ? 1 : 0,
        meta.bytes,
        meta.createdAt,
      ],
    );
  }

  protected async _getList(id: string): Promise<ListMeta | undefined> {
    const [rows] = await this.pool.execute<Rows>(`SELECT ${LIST_COLUMNS} FROM recipient_lists WHERE id = ?`, [id]);
    return rows.length === 0 ? undefined : toList(rows[0]!);
  }

  /** Under the task's row lock (the fence), without rewriting the task row: its version stays. */
  protected async _putProgress(taskId: number, guard: (task: Task) => void, record: TaskProgressRecord): Promise<void> {
    await inTransaction(this.pool, async (conn) => {
      guard(await this.lockTask(conn, taskId));
      await conn.execute(
        `INSERT INTO task_progress (task_id, history, waiting, updated_at) VALUES (?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE history = VALUES(history), waiting = VALUES(waiting), updated_at = VALUES(updated_at)`,
        [
          taskId,
          JSON.stringify(record.history),
          record.waiting === null ? null : JSON.stringify(record.waiting),
          record.updatedAt,
        ],
      );
    });
  }

  protected async _getProgress(taskId: number): Promise<TaskProgressRecord | undefined> {
    const [rows] = await this.pool.execute<Rows>(
      'SELECT history, waiting, updated_at FROM task_progress WHERE task_id = ?',
      [taskId],
    );
    if (rows.length === 0) return undefined;
    const row = rows[0]!;
    return {
      history: json<TaskProgressRecord['history']>(row.history),
      waiting: row.waiting === null ? null : json<TaskProgressRecord['waiting']>(row.waiting),
      updatedAt: Number(row.updated_at),
    };
  }

  protected _close(): Promise<void> {
    return this.pool.end();
  }

  private async lockTask(conn: PoolConnection, id: number): Promise<Task> {
    if (isTaskId(id)) {
      const [rows] = await conn.execute<Rows>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ? FOR UPDATE`, [id]);
      if (rows.length > 0) return toTask(rows[0]!);
    }
    throw taskNotFound(id);
  }
}
