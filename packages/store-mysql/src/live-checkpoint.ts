/**
 * The live-task low-water checkpoint of MySqlTaskStore (FOQS,
 * migrations/003_live_task_checkpoint.sql): every task below it is terminal,
 * and terminal is final, so live and ready scans read only
 *
 *   WHERE id >= :checkpoint AND id <= :maxId AND state IN (...)
 *
 * however much history lies below; the first live id found (or MAX(id) + 1)
 * becomes the new checkpoint.
 */
import { TASK_STATES, taskMachine, type TaskState } from '@herald/core/task';
import type { Pool, PoolConnection, RowDataPacket } from 'mysql2/promise';
import { inTransaction } from './pool';
import { TASK_COLUMNS } from './rows';

type Rows = RowDataPacket[];

/** States a task can still leave: what recovery re-enters. */
export const LIVE_STATES: readonly TaskState[] = TASK_STATES.filter((s) => !taskMachine.isTerminal(s));
/** States in which a task waits for the scheduler (SCHEDULED only once its send time has come). */
export const READY_STATES: readonly TaskState[] = ['SCHEDULED', 'QUEUED', 'PREEMPTED'];
const LIVE_IN = `state IN (${LIVE_STATES.map(() => '?').join(', ')})`;
const READY_IN = `state IN (${READY_STATES.map(() => '?').join(', ')})`;

/** The bounded live scan (FOQS): values checkpoint, maxId, then LIVE_STATES. */
export const LIVE_TASKS_SQL = `SELECT ${TASK_COLUMNS} FROM tasks WHERE id >= ? AND id <= ? AND ${LIVE_IN} ORDER BY id`;
/** The bounded ready scan: values checkpoint, maxId, READY_STATES, now, limit. */
export const READY_TASKS_SQL = `SELECT ${TASK_COLUMNS} FROM tasks WHERE id >= ? AND id <= ? AND ${READY_IN} AND (state <> 'SCHEDULED' OR send_at <= ?) ORDER BY id LIMIT ?`;

/** The store_checkpoints row of the live-task low-water mark (migrations/003_live_task_checkpoint.sql). */
const LIVE_CHECKPOINT = 'live_tasks';

/**
 * Share-locks the checkpoint row until the caller's transaction commits: taken
 * by createTask before its INSERT, so an advancing checkpoint (which takes the
 * row FOR UPDATE) never runs while a new id is taken but not yet visible.
 */
export async function shareLockLiveCheckpoint(conn: PoolConnection): Promise<void> {
  await conn.execute('SELECT value FROM store_checkpoints WHERE name = ? LOCK IN SHARE MODE', [LIVE_CHECKPOINT]);
}

/** The live checkpoint and MAX(id): the two bounds of every live or ready scan. */
export async function liveBounds(pool: Pick<Pool, 'execute'>): Promise<{ checkpoint: number; maxId: number }> {
  const [rows] = await pool.execute<Rows>(
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
export async function advanceLiveCheckpoint(pool: Pool, candidate?: number): Promise<void> {
  const firstLive = async (conn: Pick<Pool, 'execute'>, from: number): Promise<number | undefined> => {
    const [rows] = await conn.execute<Rows>(`SELECT id FROM tasks WHERE id >= ? AND ${LIVE_IN} ORDER BY id LIMIT 1`, [
      from,
      ...LIVE_STATES,
    ]);
    return rows.length === 0 ? undefined : Number(rows[0]!.id);
  };
  if (candidate === undefined) {
    const { checkpoint, maxId } = await liveBounds(pool);
    if (((await firstLive(pool, checkpoint)) ?? maxId + 1) <= checkpoint) return;
  }
  await inTransaction(pool, async (conn) => {
    const [locked] = await conn.execute<Rows>('SELECT value FROM store_checkpoints WHERE name = ? FOR UPDATE', [
      LIVE_CHECKPOINT,
    ]);
    const current = Number(locked[0]!.value);
    let next = await firstLive(conn, current);
    if (next === undefined) {
      const [max] = await conn.execute<Rows>('SELECT COALESCE(MAX(id), 0) AS max_id FROM tasks');
      next = Number(max[0]!.max_id) + 1;
    }
    if (next > current)
      await conn.execute('UPDATE store_checkpoints SET value = ? WHERE name = ?', [next, LIVE_CHECKPOINT]);
  });
}
