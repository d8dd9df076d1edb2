import type { DeliverAt, QuietHours } from '@herald/core/time';
import type { ExecutionUnit, ListMeta, Task, TaskContent, TaskReport, TaskState, UnitState } from '@herald/core/task';
import type { OutboxEvent } from '@herald/core/ports';
import type { TaskRollout } from '@herald/core/rollout';
import { taskContentOf } from '@herald/core/task';
import type { RowDataPacket } from 'mysql2/promise';

/**
 * Column lists and row <-> record mapping for the tables of
 * migrations/001_tables.sql and 002_outbox.sql (tasks.idempotency_key: 005; tasks.display_at: 006; tasks.speed: 010; tasks.targeting: 011; tasks.collapse_key: 013; tasks.no_resend_since: 014; tasks.deliver_at, tasks.quiet_hours: 019; tasks.rollout: 020). mysql2 returns BIGINT columns
 * as numbers (ids are safe integers) and may hand JSON columns back parsed or
 * as text depending on the protocol, so both are accepted.
 */

export const TASK_COLUMNS =
  'id, account_id, list_id, content, content_crc, priority, send_at, expires_at, list_count, state, version, epoch, owner, filtered_list_id, report, error, created_at, updated_at, idempotency_key, display_at, speed, targeting, collapse_key, no_resend_since, deliver_at, quiet_hours, rollout';

export const UNIT_COLUMNS =
  'task_id, unit_no, `start`, `end`, executor_id, state, `checkpoint`, delivered, `offline`, updated_at';

export const LIST_COLUMNS = 'id, account_id, `count`, checksum, is_sorted, is_unique, bytes, created_at';

export const EVENT_COLUMNS = 'id, task_id, from_state, to_state, version, `at`';

/** What this adapter binds to a placeholder. */
export type SqlValue = string | number | boolean | null;

/** A JSON column: MySQL hands back an object, MariaDB (JSON is LONGTEXT there) a string. */
export function json<T>(value: unknown): T {
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function toTask(r: RowDataPacket): Task {
  const content = json<TaskContent>(r.content);
  return {
    id: Number(r.id),
    accountId: String(r.account_id),
    listId: String(r.list_id),
    content: taskContentOf(content),
    contentCrc: Number(r.content_crc),
    priority: r.priority as Task['priority'],
    sendAt: Number(r.send_at),
    expiresAt: Number(r.expires_at),
    listCount: Number(r.list_count),
    ...(r.idempotency_key === null || r.idempotency_key === undefined
      ? {}
      : { idempotencyKey: String(r.idempotency_key) }),
    ...(r.display_at === null || r.display_at === undefined ? {} : { displayAt: Number(r.display_at) }),
    speed: r.speed === null || r.speed === undefined ? null : Number(r.speed),
    targeting: r.targeting === null || r.targeting === undefined ? null : String(r.targeting),
    ...(r.collapse_key === null || r.collapse_key === undefined ? {} : { collapseKey: String(r.collapse_key) }),
    noResendSince: r.no_resend_since === null || r.no_resend_since === undefined ? null : Number(r.no_resend_since),
    ...(r.deliver_at === null || r.deliver_at === undefined ? {} : { deliverAt: json<DeliverAt>(r.deliver_at) }),
    ...(r.quiet_hours === null || r.quiet_hours === undefined ? {} : { quietHours: json<QuietHours>(r.quiet_hours) }),
    ...(r.rollout === null || r.rollout === undefined ? {} : { rollout: json<TaskRollout>(r.rollout) }),
    state: r.state as TaskState,
    version: Number(r.version),
    epoch: Number(r.epoch),
    owner: r.owner === null ? null : String(r.owner),
    filteredListId: r.filtered_list_id === null ? null : String(r.filtered_list_id),
    report: json<TaskReport>(r.report),
    error: r.error === null ? null : json<{ code: string; message: string }>(r.error),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
  };
}

/** The values of an UPDATE of every mutable task column, in SET order, then the id. */
export const UPDATE_TASK =
  'UPDATE tasks SET state = ?, version = ?, epoch = ?, owner = ?, filtered_list_id = ?, report = ?, error = ?, updated_at = ? WHERE id = ?';

export function updateTaskValues(t: Task): SqlValue[] {
  return [
    t.state,
    t.version,
    t.epoch,
    t.owner,
    t.filteredListId,
    JSON.stringify(t.report),
    t.error === null ? null : JSON.stringify(t.error),
    t.updatedAt,
    t.id,
  ];
}

export const INSERT_TASK =
  'INSERT INTO tasks (account_id, list_id, content, content_crc, priority, send_at, expires_at, list_count, state, version, epoch, owner, filtered_list_id, report, error, created_at, updated_at, idempotency_key, display_at, speed, targeting, collapse_key, no_resend_since, deliver_at, quiet_hours, rollout) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';

/** INSERT_TASK's values for a record built by newTaskRecord (its id is the database's to give). */
export function insertTaskValues(t: Omit<Task, 'id'>): SqlValue[] {
  return [
    t.accountId,
    t.listId,
    JSON.stringify(t.content),
    t.contentCrc,
    t.priority,
    t.sendAt,
    t.expiresAt,
    t.listCount,
    t.state,
    t.version,
    t.epoch,
    t.owner,
    t.filteredListId,
    JSON.stringify(t.report),
    t.error === null ? null : JSON.stringify(t.error),
    t.createdAt,
    t.updatedAt,
    t.idempotencyKey ?? null,
    t.displayAt ?? null,
    t.speed,
    t.targeting,
    t.collapseKey ?? null,
    t.noResendSince,
    t.deliverAt === undefined ? null : JSON.stringify(t.deliverAt),
    t.quietHours === undefined ? null : JSON.stringify(t.quietHours),
    t.rollout === undefined ? null : JSON.stringify(t.rollout),
  ];
}

export function toUnit(r: RowDataPacket): ExecutionUnit {
  return {
    taskId: Number(r.task_id),
    unitNo: Number(r.unit_no),
    start: Number(r.start),
    end: Number(r.end),
    executorId: String(r.executor_id),
    state: r.state as UnitState,
    checkpoint: Number(r.checkpoint),
    delivered: Number(r.delivered),
    offline: Number(r.offline),
    updatedAt: Number(r.updated_at),
  };
}

export function unitValues(u: ExecutionUnit): SqlValue[] {
  return [u.taskId, u.unitNo, u.start, u.end, u.executorId, u.state, u.checkpoint, u.delivered, u.offline, u.updatedAt];
}

export function toList(r: RowDataPacket): ListMeta {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    count: Number(r.count),
    checksum: Number(r.checksum),
    sorted: Number(r.is_sorted) === 1,
    unique: Number(r.is_unique) === 1,
    bytes: Number(r.bytes),
    createdAt: Number(r.created_at),
  };
}

export function toEvent(r: RowDataPacket): OutboxEvent {
  return {
    id: Number(r.id),
    taskId: Number(r.task_id),
    from: r.from_state === null ? null : (r.from_state as TaskState),
    to: r.to_state as TaskState,
    version: Number(r.version),
    at: Number(r.at),
  };
}
