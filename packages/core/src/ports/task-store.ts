import type { ExecutionUnit, ListMeta, NewTask, NewUnit, Task, TaskReport } from '../task/model';
import type { Fence } from '../task/fence';
import type { TaskEvent, TaskState } from '../task/task-machine';
import type { UnitEvent } from '../task/unit-machine';
import type { TaskProgressRecord } from '../progress/record';

export interface TaskQuery {
  state?: TaskState;
  accountId?: string;
  /**
   * Only tasks of these accounts (the accounts an operator's token may see).
   * Combined with `accountId`, a task must match both. An empty list matches
   * nothing. At most 1000 ids.
   */
  accountIds?: readonly string[];
  /** Keyset cursor of an ascending listing: only tasks with a larger id. */
  afterId?: number;
  /**
   * 'asc' (default): ascending id, paged by `afterId`. 'desc': newest first
   * (descending id), paged by `beforeId`; what an operator's task list wants.
   */
  order?: 'asc' | 'desc';
  /** Keyset cursor of a descending listing: only tasks with a smaller id. */
  beforeId?: number;
  /** Only tasks created at or after this time (epoch ms). */
  createdFrom?: number;
  /** Only tasks created before this time (epoch ms). */
  createdBefore?: number;
  /**
   * Only tasks whose title or body contains this text, ignoring case; a term
   * of digits also matches the task with that id. 1..200 characters. An
   * adapter that scans (the embedded one) may answer a short or empty page
   * with a nextCursor once it has read its scan budget: keep paging.
   */
  q?: string;
  /** 1..1000, default 100. */
  limit?: number;
}

export interface TaskPage {
  tasks: Task[];
  /**
   * Pass as `afterId` (ascending) or `beforeId` (descending) for the next
   * page; null on the last page. A search's page may be short, even empty,
   * and still have one (see TaskQuery.q).
   */
  nextCursor: number | null;
}

/** Fields an owner may change together with (or without) a state change. */
export interface TaskPatch {
  filteredListId?: string | null;
  report?: Partial<TaskReport>;
  error?: { code: string; message: string } | null;
}

/** A task state change waiting in the outbox. */
export interface OutboxEvent {
  id: number;
  taskId: number;
  from: TaskState | null;
  to: TaskState;
  version: number;
  at: number;
}

export interface UnitProgress {
  /** The checkpoint this progress starts from; ignored unless it equals the stored one. */
  from: number;
  /** The new checkpoint. */
  to: number;
  delivered: number;
  offline: number;
}

/**
 * The task store: where every task, execution unit and recipient-list record
 * lives. It owns its connection; callers see only these methods.
 *
 * Contract, checked by the TaskStore conformance suite for every adapter:
 * - Ids are positive integers, increasing in creation order.
 * - Every state change goes through the core state machines: an event the
 *   current state does not accept fails with ILLEGAL_TRANSITION and changes
 *   nothing.
 * - Every write by an owner carries a Fence. A fence whose epoch is below the
 *   stored epoch fails with FENCED and changes nothing. `claimTask` raises the
 *   epoch, so the previous owner's writes fail from then on.
 * - `version` rises by one on every write to a task.
 * - `checkpointUnit` is idempotent: progress whose `from` is not the stored
 *   checkpoint (a replayed or out-of-order batch) is ignored.
 * - Times are passed in (`now`, epoch ms); adapters never read a clock.
 * - Idempotent creation: a NewTask with an `idempotencyKey` already stored
 *   (by any earlier createTask, whatever its other fields) creates nothing
 *   and returns the stored task as it is now (its state may have moved on);
 *   of concurrent creates with one key, exactly one creates the task and all
 *   return it. Keys are compared exactly (case and trailing spaces count)
 *   and are never released, not even when the task is terminal.
 */
export interface TaskStore {
  createTask(input: NewTask, now: number): Promise<Task>;
  getTask(id: number): Promise<Task | undefined>;
  /** The task created with this idempotency key, if any. */
  getTaskByIdempotencyKey(key: string): Promise<Task | undefined>;
  listTasks(query?: TaskQuery): Promise<TaskPage>;
  /** Every task not in a terminal state, ascending id: what a recovering scheduler re-enters. */
  listLiveTasks(): Promise<Task[]>;
  /** Tasks of an account with this content CRC whose filtered list exists: the no-resend ledger. */
  listTasksByContent(accountId: string, contentCrc: number): Promise<Task[]>;
  /** Takes ownership: epoch + 1 and owner set, whatever the previous owner. */
  claimTask(id: number, owner: string, now: number): Promise<Task>;
  transitionTask(id: number, fence: Fence, event: TaskEvent, patch: TaskPatch, now: number): Promise<Task>;
  updateTask(id: number, fence: Fence, patch: TaskPatch, now: number): Promise<Task>;

  /** Creates a task's units once; fails with VALIDATION_FAILED if it already has units. */
  putUnits(taskId: number, fence: Fence, units: readonly NewUnit[], now: number): Promise<ExecutionUnit[]>;
  listUnits(taskId: number): Promise<ExecutionUnit[]>;
  transitionUnit(
    taskId: number,
    unitNo: number,
    fence: Fence,
    event: UnitEvent,
    now: number,
    executorId?: string,
  ): Promise<ExecutionUnit>;
  checkpointUnit(
    taskId: number,
    unitNo: number,
    fence: Fence,
    progress: UnitProgress,
    now: number,
  ): Promise<ExecutionUnit>;

  /**
   * The outbox: one event per task state change, written in the same atomic
   * write as the change (MySQL: by a trigger). Ascending `id`; the controller
   * relays them to the event bus and then marks them relayed.
   */
  readOutbox(afterId: number, limit: number): Promise<OutboxEvent[]>;
  /** Marks every outbox event with id <= upToId relayed; readOutbox skips relayed events. */
  markRelayed(upToId: number): Promise<void>;

  putList(meta: ListMeta): Promise<void>;
  getList(id: string): Promise<ListMeta | undefined>;

  /**
   * Replaces the task's progress record (its curve of confirmed counts and,
   * while it waits, why: @herald/core/progress), fenced like every owner
   * write: an epoch below the task's fails with FENCED and writes nothing.
   * The record is checked whole (VALIDATION_FAILED names the field); it does
   * not change the task's version. Safe to repeat.
   */
  putProgress(taskId: number, fence: Fence, record: TaskProgressRecord): Promise<void>;
  /** The task's last written progress record; undefined when none was (a task from before it was kept, or not sent yet). */
  getProgress(taskId: number): Promise<TaskProgressRecord | undefined>;

  close(): Promise<void>;
}
