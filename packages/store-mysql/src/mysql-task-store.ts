import {
  applyTaskPatch,
  applyUnitProgress,
  checkContentQuery,
  checkedFence,
  checkFence,
  checkIdString,
  checkLimit,
  checkListMeta,
  checkNewTask,
  checkNewUnits,
  checkNow,
  checkOutboxRead,
  checkUnitNo,
  compileTaskQuery,
  isTaskId,
  MAX_IDEMPOTENCY_KEY_CHARS,
  newTaskRecord,
  newUnitRecord,
  TASK_QUERY_DEFAULT_LIMIT,
  transitionedUnit,
  TASK_STATES,
  taskMachine,
  type ExecutionUnit,
  type Fence,
  type ListMeta,
  type NewTask,
  type NewUnit,
  type Task,
  type TaskEvent,
  type TaskState,
  type UnitEvent,
  type TaskRecordRules,
} from '@herald/core/task';
import { ConfigError, ErrorCodes, HeraldError, NotFoundError, ValidationError } from '@herald/core';
import type { OutboxEvent, TaskPage, TaskPatch, TaskQuery, TaskStore, UnitProgress } from '@herald/core/ports';
import { createPool, type Pool, type PoolConnection, type ResultSetHeader, type RowDataPacket } from 'mysql2/promise';
import { checkDatabaseName, checkPoolSize, connectionOptions, parseMySqlUrl, type MySqlTaskStoreOptions } from './connection';
import { loadMigrations, pendingMigrations, readApplied } from './migrate';
import { connectError, mysqlCode, toHeraldError } from './mysql-errors';
import { inTransaction } from './pool';
import {
  EVENT_COLUMNS,
  INSERT_TASK,
  insertTaskValues,
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

/** States a task can still leave: what recovery re-enters. */
export const LIVE_STATES: readonly TaskState[] = TASK_STATES.filter((s) => !taskMachine.isTerminal(s));
/** States in which a task waits for the scheduler (SCHEDULED only once its send time has come). */
const READY_STATES: readonly TaskState[] = ['SCHEDULED', 'QUEUED', 'PREEMPTED'];
const LIVE_IN = `state IN (${LIVE_STATES.map(() => '?').join(', ')})`;
const READY_IN = `state IN (${READY_STATES.map(() => '?').join(', ')})`;

/** The bounded live scan (FOQS): values checkpoint, maxId, then LIVE_STATES. */
export const LIVE_TASKS_SQL = `SELECT ${TASK_COLUMNS} FROM tasks WHERE id >= ? AND id <= ? AND ${LIVE_IN} ORDER BY id`;
/** The bounded ready scan: values checkpoint, maxId, READY_STATES, now, limit. */
export const READY_TASKS_SQL = `SELECT ${TASK_COLUMNS} FROM tasks WHERE id >= ? AND id <= ? AND ${READY_IN} AND (state <> 'SCHEDULED' OR send_at <= ?) ORDER BY id LIMIT ?`;

/** The store_checkpoints row of the live-task low-water mark (migrations/003_live_task_checkpoint.sql). */
const LIVE_CHECKPOINT = 'live_tasks';


type Rows = RowDataPacket[];

/**
 * The production TaskStore, on MySQL/MariaDB (mysql2). It passes the same
 * conformance suite as the embedded LevelTaskStore.
 *
 * Schema: migrations/*.sql, applied by `migrate` (`herald migrate`); `open`
 * refuses a database that is not fully migrated.
 *
 * Writes: every write to a task or its units is one transaction that first
 * locks the task row (SELECT ... FOR UPDATE), checks the caller's fence with
 * core `checkFence`, computes the next record with the core state machines
 * and patch rules, and writes it with version + 1. The row lock serialises
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
 */
export class MySqlTaskStore implements TaskStore {
  private closed = false;
  private readonly inflight = new Set<Promise<unknown>>();

  private constructor(private readonly pool: Pool) {}

  /**
   * Connects to a migrated database. Fails with one line naming the setting
   * to fix: `mysql.url` (unreachable: UNAVAILABLE, retriable; bad
   * credentials: CONFIG_INVALID) or `mysql.database` (missing or not
   * migrated: CONFIG_INVALID, "run herald migrate").
   */
  static async open(options: MySqlTaskStoreOptions): Promise<MySqlTaskStore> {
    const url = parseMySqlUrl(options?.url);
    const database = checkDatabaseName(options.database);
    const poolSize = checkPoolSize(options.poolSize);
    const files = await loadMigrations();
    const pool = createPool({ ...connectionOptions(url, database, options.tls), connectionLimit: poolSize, maxIdle: poolSize, waitForConnections: true, queueLimit: 0 });
    try {
      let applied;
      try {
        applied = await readApplied(pool);
      } catch (error) {
        if (mysqlCode(error) === 'ER_NO_SUCH_TABLE') {
          throw new ConfigError('mysql.database', `database '${database}' is not migrated (no schema_migrations table): run herald migrate`);
        }
        throw connectError(error, url, database);
      }
      const pending = pendingMigrations(files, applied);
      if (pending.length > 0) {
        throw new ConfigError('mysql.database', `database '${database}' lacks migrations ${pending.map((m) => m.name).join(', ')}: run herald migrate`);
      }
      return new MySqlTaskStore(pool);
    } catch (error) {
      await pool.end().catch(() => undefined);
      throw error;
    }
  }

  createTask(input: NewTask, now: number): Promise<Task> {
    return this.run('createTask', async () => {
      checkNewTask(input, RULES);
      checkNow(now, RULES);
      const record = newTaskRecord(0, input, now);
      try {
        return await this.transaction(async (conn) => {
          // Share-lock the live checkpoint until commit: an advancing checkpoint (which takes it
          // FOR UPDATE) then never runs while this insert's id is taken but not yet visible.
          await conn.execute('SELECT value FROM store_checkpoints WHERE name = ? LOCK IN SHARE MODE', [LIVE_CHECKPOINT]);
          const [result] = await conn.execute<ResultSetHeader>(INSERT_TASK, insertTaskValues(record));
          return { ...record, id: Number(result.insertId) };
        });
      } catch (error) {
        // The idempotency key's unique index refused a second task: answer the first. A concurrent
        // insert of the same key waits for the first to commit, so the row is there to read.
        if (record.idempotencyKey === undefined || mysqlCode(error) !== 'ER_DUP_ENTRY') throw error;
        const existing = await this.readTaskByKey(record.idempotencyKey);
        if (existing === undefined) throw error;
        return existing;
      }
    });
  }

  getTaskByIdempotencyKey(key: string): Promise<Task | undefined> {
    return this.run('getTaskByIdempotencyKey', async () => {
      checkIdString('idempotencyKey', key, true, MAX_IDEMPOTENCY_KEY_CHARS);
      return this.readTaskByKey(key);
    });
  }

  private async readTaskByKey(key: string): Promise<Task | undefined> {
    const [rows] = await this.pool.execute<Rows>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE idempotency_key = ?`, [key]);
    return rows.length === 0 ? undefined : toTask(rows[0]!);
  }

  getTask(id: number): Promise<Task | undefined> {
    return this.run('getTask', async () => {
      if (!isTaskId(id)) return undefined;
      const [rows] = await this.pool.execute<Rows>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ?`, [id]);
      return rows.length === 0 ? undefined : toTask(rows[0]!);
    });
  }

  listTasks(query: TaskQuery = {}): Promise<TaskPage> {
    return this.run('listTasks', async () => {
      const q = compileTaskQuery(query);
      const where = [q.order === 'desc' ? 'id < ?' : 'id > ?'];
      const values: SqlValue[] = [q.order === 'desc' ? (q.beforeId ?? Number.MAX_SAFE_INTEGER) : q.afterId];
      if (q.createdFrom !== undefined) {
        where.push('created_at >= ?');
        values.push(q.createdFrom);
      }
      if (q.createdBefore !== undefined) {
        where.push('created_at < ?');
        values.push(q.createdBefore);
      }
      if (q.state !== undefined) {
        where.push('state = ?');
        values.push(q.state);
      }
      if (q.accountId !== undefined) {
        where.push('account_id = ?');
        values.push(q.accountId);
      }
      if (q.accountIds !== undefined) {
        if (q.accountIds.length === 0) return { tasks: [], nextCursor: null };
        where.push(`account_id IN (${q.accountIds.map(() => '?').join(', ')})`);
        values.push(...q.accountIds);
      }
      // One extra row tells whether a next page exists.
      const [rows] = await this.pool.execute<Rows>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE ${where.join(' AND ')} ORDER BY id ${q.order === 'desc' ? 'DESC' : 'ASC'} LIMIT ?`, [...values, q.limit + 1]);
      const tasks = rows.slice(0, q.limit).map(toTask);
      return { tasks, nextCursor: rows.length > q.limit ? tasks[tasks.length - 1]!.id : null };
    });
  }

  /**
   * Every live task, ascending id. FOQS checkpointing (seed 003): the scan is
   * bounded below by the persisted low-water checkpoint (every task under it
   * is terminal, and terminal is final) and above by MAX(id) read first:
   *
   *   WHERE id >= :checkpoint AND id <= :maxId AND state IN (live states)
   *
   * so it reads only the tail of the table that can still hold live tasks,
   * however much history lies below. The first live id found (or maxId + 1)
   * then becomes the new checkpoint (see advanceLiveCheckpoint).
   */
  listLiveTasks(): Promise<Task[]> {
    return this.run('listLiveTasks', async () => {
      const { checkpoint, maxId } = await this.liveBounds();
      const [rows] = await this.pool.execute<Rows>(LIVE_TASKS_SQL, [checkpoint, maxId, ...LIVE_STATES]);
      const tasks = rows.map(toTask);
      const lowWater = tasks.length > 0 ? tasks[0]!.id : maxId + 1;
      if (lowWater > checkpoint) await this.advanceLiveCheckpoint(lowWater);
      return tasks;
    });
  }

  /**
   * Tasks waiting for the scheduler, ascending id, at most `limit` (1..1000,
   * default 100): QUEUED and PREEMPTED (waiting for an executor slot) and
   * SCHEDULED whose send time has come (`sendAt <= now`). Bounded by the same
   * checkpoint as listLiveTasks, so it does not slow down as history grows.
   * Not part of the TaskStore port: a MySQL-only read for schedulers that poll.
   */
  listReadyTasks(now: number, limit: number = TASK_QUERY_DEFAULT_LIMIT): Promise<Task[]> {
    return this.run('listReadyTasks', async () => {
      checkNow(now, RULES);
      checkLimit(limit);
      const { checkpoint, maxId } = await this.liveBounds();
      const [rows] = await this.pool.execute<Rows>(READY_TASKS_SQL, [checkpoint, maxId, ...READY_STATES, now, limit]);
      return rows.map(toTask);
    });
  }

  listTasksByContent(accountId: string, contentCrc: number): Promise<Task[]> {
    return this.run('listTasksByContent', async () => {
      checkContentQuery(accountId, contentCrc);
      const [rows] = await this.pool.execute<Rows>(
        `SELECT ${TASK_COLUMNS} FROM tasks WHERE account_id = ? AND content_crc = ? AND filtered_list_id IS NOT NULL ORDER BY id`,
        [accountId, contentCrc],
      );
      return rows.map(toTask);
    });
  }

  claimTask(id: number, owner: string, now: number): Promise<Task> {
    return this.writeTask('claimTask', id, null, now, (task) => {
      checkIdString('owner', owner, false, MAX_ID_CHARS);
      return { ...task, epoch: task.epoch + 1, owner };
    });
  }

  transitionTask(id: number, fence: Fence, event: TaskEvent, patch: TaskPatch, now: number): Promise<Task> {
    return this.writeTask('transitionTask', id, fence, now, (task) => {
      const state = taskMachine.next(task.state, event);
      return { ...applyTaskPatch(task, patch, RULES), state };
    });
  }

  updateTask(id: number, fence: Fence, patch: TaskPatch, now: number): Promise<Task> {
    return this.writeTask('updateTask', id, fence, now, (task) => applyTaskPatch(task, patch, RULES));
  }

  putUnits(taskId: number, fence: Fence, units: readonly NewUnit[], now: number): Promise<ExecutionUnit[]> {
    return this.run('putUnits', async () => {
      checkNewUnits(units, RULES);
      checkNow(now, RULES);
      return this.transaction(async (conn) => {
        const task = await this.lockTask(conn, taskId);
        checkFence(task, checkedFence(fence));
        const [existing] = await conn.execute<Rows>('SELECT unit_no FROM execution_units WHERE task_id = ? LIMIT 1', [taskId]);
        if (existing.length > 0) throw new ValidationError(`task ${taskId} already has units`, { taskId });
        const records = units.map((u) => newUnitRecord(taskId, u, now)).sort((a, b) => a.unitNo - b.unitNo);
        if (records.length > 0) {
          const rows = records.map(() => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
          await conn.query(`INSERT INTO execution_units (${UNIT_COLUMNS}) VALUES ${rows}`, records.flatMap(unitValues));
        }
        return records;
      });
    });
  }

  listUnits(taskId: number): Promise<ExecutionUnit[]> {
    return this.run('listUnits', async () => {
      if (!isTaskId(taskId)) return [];
      const [rows] = await this.pool.execute<Rows>(`SELECT ${UNIT_COLUMNS} FROM execution_units WHERE task_id = ? ORDER BY unit_no`, [taskId]);
      return rows.map(toUnit);
    });
  }

  transitionUnit(taskId: number, unitNo: number, fence: Fence, event: UnitEvent, now: number, executorId?: string): Promise<ExecutionUnit> {
    return this.writeUnit('transitionUnit', taskId, unitNo, fence, now, (unit) => transitionedUnit(unit, event, now, executorId, RULES));
  }

  checkpointUnit(taskId: number, unitNo: number, fence: Fence, progress: UnitProgress, now: number): Promise<ExecutionUnit> {
    // Idempotent: a replayed or out-of-order batch is ignored and the unit returned as stored.
    return this.writeUnit('checkpointUnit', taskId, unitNo, fence, now, (unit) => applyUnitProgress(unit, progress, now));
  }

  readOutbox(afterId: number, limit: number): Promise<OutboxEvent[]> {
    return this.run('readOutbox', async () => {
      checkOutboxRead(afterId, limit);
      const [rows] = await this.pool.execute<Rows>(`SELECT ${EVENT_COLUMNS} FROM task_events WHERE relayed_at IS NULL AND id > ? ORDER BY id LIMIT ?`, [
        afterId,
        limit,
      ]);
      return rows.map(toEvent);
    });
  }

  markRelayed(upToId: number): Promise<void> {
    return this.run('markRelayed', async () => {
      if (!Number.isSafeInteger(upToId) || upToId < 0) throw new ValidationError('upToId must be a non-negative integer', { upToId });
      // relayed_at is the server's clock: an audit column only, never read back by the store.
      await this.pool.execute('UPDATE task_events SET relayed_at = NOW(3) WHERE relayed_at IS NULL AND id <= ?', [upToId]);
    });
  }

  putList(meta: ListMeta): Promise<void> {
    return this.run('putList', async () => {
      checkListMeta(meta, RULES);
      await this.pool.execute(
        `INSERT INTO recipient_lists (${LIST_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
         ON DUPLICATE KEY UPDATE account_id = VALUES(account_id), \`count\` = VALUES(\`count\`), checksum = VALUES(checksum),
           is_sorted = VALUES(is_sorted), is_unique = VALUES(is_unique), bytes = VALUES(bytes), created_at = VALUES(created_at)`,
        [meta.id, meta.accountId, meta.count, meta.checksum, meta.sorted ? 1 : 0, meta.unique ? 1 : 0, meta.bytes, meta.createdAt],
      );
    });
  }

  getList(id: string): Promise<ListMeta | undefined> {
    return this.run('getList', async () => {
      if (typeof id !== 'string') return undefined;
      const [rows] = await this.pool.execute<Rows>(`SELECT ${LIST_COLUMNS} FROM recipient_lists WHERE id = ?`, [id]);
      return rows.length === 0 ? undefined : toList(rows[0]!);
    });
  }

  /** Waits for calls in flight, then closes the pool. Any later call fails with STORE_CLOSED; a second close is a no-op. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.inflight]);
    await this.pool.end().catch((error: unknown) => {
      throw toHeraldError(error, 'close');
    });
  }

  /** Every public call: refused after close, errors turned into HeraldErrors, tracked so close can wait. */
  private async run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    if (this.closed) throw new HeraldError(ErrorCodes.STORE_CLOSED, `MySqlTaskStore.${op}: the store is closed`);
    const call = fn();
    this.inflight.add(call);
    try {
      return await call;
    } catch (error) {
      throw toHeraldError(error, op);
    } finally {
      this.inflight.delete(call);
    }
  }

  /** Runs `fn` in a transaction (pool.ts: a deadlock victim runs again). */
  private transaction<T>(fn: (conn: PoolConnection) => Promise<T>): Promise<T> {
    return inTransaction(this.pool, fn);
  }

  private async lockTask(conn: PoolConnection, id: number): Promise<Task> {
    if (isTaskId(id)) {
      const [rows] = await conn.execute<Rows>(`SELECT ${TASK_COLUMNS} FROM tasks WHERE id = ? FOR UPDATE`, [id]);
      if (rows.length > 0) return toTask(rows[0]!);
    }
    throw new NotFoundError(ErrorCodes.TASK_NOT_FOUND, `task ${id} not found`, { taskId: id });
  }

  /**
   * One fenced read-modify-write of a task: lock the row, check the fence
   * (when the caller is an owner), let `change` build the next record (state
   * machine, patch), bump version and updatedAt, write. Anything `change`
   * throws rolls back, leaving the task untouched. The outbox event of a
   * state change is the trigger's to write.
   */
  private writeTask(op: string, id: number, fence: Fence | null, now: number, change: (task: Task) => Task): Promise<Task> {
    return this.run(op, async () => {
      checkNow(now, RULES);
      const next = await this.transaction(async (conn) => {
        const task = await this.lockTask(conn, id);
        if (fence !== null) checkFence(task, checkedFence(fence));
        const updated: Task = { ...change(task), version: task.version + 1, updatedAt: now };
        await conn.execute(UPDATE_TASK, updateTaskValues(updated));
        return updated;
      });
      if (taskMachine.isTerminal(next.state)) {
        // An old task finishing may let the live checkpoint move up. The write above is
        // committed either way, and a checkpoint left behind is only slower, never wrong,
        // so a failure here does not fail the write.
        await this.advanceLiveCheckpoint().catch(() => undefined);
      }
      return next;
    });
  }

  /** One fenced read-modify-write of a unit, under its task's row lock. `change` returns the unit itself to mean "no change". */
  private writeUnit(
    op: string,
    taskId: number,
    unitNo: number,
    fence: Fence,
    now: number,
    change: (unit: ExecutionUnit) => ExecutionUnit,
  ): Promise<ExecutionUnit> {
    return this.run(op, async () => {
      checkNow(now, RULES);
      return this.transaction(async (conn) => {
        const task = await this.lockTask(conn, taskId);
        checkFence(task, checkedFence(fence));
        checkUnitNo(unitNo);
        const [rows] = await conn.execute<Rows>(`SELECT ${UNIT_COLUMNS} FROM execution_units WHERE task_id = ? AND unit_no = ? FOR UPDATE`, [taskId, unitNo]);
        if (rows.length === 0) throw new NotFoundError(ErrorCodes.NOT_FOUND, `task ${taskId} has no unit ${unitNo}`, { taskId, unitNo });
        const unit = toUnit(rows[0]!);
        const next = change(unit);
        if (next !== unit) {
          await conn.execute(
            'UPDATE execution_units SET executor_id = ?, state = ?, `checkpoint` = ?, delivered = ?, `offline` = ?, updated_at = ? WHERE task_id = ? AND unit_no = ?',
            [next.executorId, next.state, next.checkpoint, next.delivered, next.offline, next.updatedAt, taskId, unitNo],
          );
        }
        return next;
      });
    });
  }

  /** The live checkpoint and MAX(id): the two bounds of every live or ready scan. */
  private async liveBounds(): Promise<{ checkpoint: number; maxId: number }> {
    const [rows] = await this.pool.execute<Rows>(
      'SELECT (SELECT value FROM store_checkpoints WHERE name = ?) AS checkpoint, (SELECT COALESCE(MAX(id), 0) FROM tasks) AS max_id',
      [LIVE_CHECKPOINT],
    );
    return { checkpoint: Number(rows[0]!.checkpoint ?? 0), maxId: Number(rows[0]!.max_id) };
  }

  /**
   * Moves the live checkpoint up to the first live task id (or MAX(id) + 1
   * when none is live). An unlocked look first (skipped when the caller just
   * scanned and passes what it found); only when the mark would move, a short
   * transaction locks the checkpoint row FOR UPDATE (waiting for every
   * createTask in flight, which share-locks it from before its INSERT until
   * commit), looks again, now seeing every committed task, and stores the
   * result. It never moves the mark down. Each look walks from the old mark
   * over the tasks that became terminal since, so each task is passed once.
   */
  private async advanceLiveCheckpoint(candidate?: number): Promise<void> {
    const firstLive = async (conn: Pick<Pool, 'execute'>, from: number): Promise<number | undefined> => {
      const [rows] = await conn.execute<Rows>(`SELECT id FROM tasks WHERE id >= ? AND ${LIVE_IN} ORDER BY id LIMIT 1`, [from, ...LIVE_STATES]);
      return rows.length === 0 ? undefined : Number(rows[0]!.id);
    };
    if (candidate === undefined) {
      const { checkpoint, maxId } = await this.liveBounds();
      if (((await firstLive(this.pool, checkpoint)) ?? maxId + 1) <= checkpoint) return;
    }
    await this.transaction(async (conn) => {
      const [locked] = await conn.execute<Rows>('SELECT value FROM store_checkpoints WHERE name = ? FOR UPDATE', [LIVE_CHECKPOINT]);
      const current = Number(locked[0]!.value);
      let next = await firstLive(conn, current);
      if (next === undefined) {
        const [max] = await conn.execute<Rows>('SELECT COALESCE(MAX(id), 0) AS max_id FROM tasks');
        next = Number(max[0]!.max_id) + 1;
      }
      if (next > current) await conn.execute('UPDATE store_checkpoints SET value = ? WHERE name = ?', [next, LIVE_CHECKPOINT]);
    });
  }
}
