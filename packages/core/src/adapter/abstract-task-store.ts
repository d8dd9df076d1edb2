import { ErrorCodes, NotFoundError, ValidationError } from '../errors';
import type { RetryOptions } from '../retry/retry';
import type { OutboxEvent, TaskPage, TaskPatch, TaskQuery, TaskStore, UnitProgress } from '../ports/task-store';
import { checkFence, type Fence } from '../task/fence';
import type { ExecutionUnit, ListMeta, NewTask, NewUnit, Task } from '../task/model';
import { taskMachine, type TaskEvent } from '../task/task-machine';
import type { UnitEvent } from '../task/unit-machine';
import { checkProgressRecord, type TaskProgressRecord } from '../progress/record';
import {
  applyTaskPatch,
  applyUnitProgress,
  checkContentQuery,
  checkedFence,
  checkIdString,
  checkListMeta,
  checkNewTask,
  checkNewUnits,
  checkNow,
  checkOutboxRead,
  checkUnitNo,
  compileTaskQuery,
  DEFAULT_TASK_RECORD_RULES,
  isTaskId,
  MAX_IDEMPOTENCY_KEY_CHARS,
  newTaskRecord,
  newUnitRecord,
  transitionedUnit,
  type CompiledTaskQuery,
  type TaskRecordRules,
} from '../task/validate';
import { AdapterLifecycle, type ErrorTranslator } from './lifecycle';

/** What a unit or progress write's fence check reads of its task: an adapter may answer it without reading the task. */
export type TaskFence = Pick<Task, 'id' | 'epoch'>;

export interface TaskStoreBaseOptions {
  /** How errors name the adapter, e.g. 'LevelTaskStore'. */
  name: string;
  /** The backend's error translation. */
  translate: ErrorTranslator;
  /** What the adapter's columns accept beyond the contract. @defaultValue DEFAULT_TASK_RECORD_RULES */
  rules?: TaskRecordRules;
  /** With these, calls safe to repeat ride out outages (see AdapterLifecycle.idempotent). */
  retry?: RetryOptions;
}

/** TASK_NOT_FOUND, as every adapter answers an unknown (or malformed) task id. */
export function taskNotFound(id: number): NotFoundError {
  return new NotFoundError(ErrorCodes.TASK_NOT_FOUND, `task ${id} not found`, { taskId: id });
}

/** NOT_FOUND for a unit its task does not have. */
export function unitNotFound(taskId: number, unitNo: number): NotFoundError {
  return new NotFoundError(ErrorCodes.NOT_FOUND, `task ${taskId} has no unit ${unitNo}`, { taskId, unitNo });
}

/**
 * The TaskStore contract every adapter shares (abstract-level's pattern):
 * each public method refuses calls after close, validates its input with
 * the core rules once, computes new records with the core state machines
 * and patch rules, and calls the adapter's protected `_hook`, which only
 * reads and writes its storage. Read-modify-writes hand the adapter an
 * `update` (or `guard`) to run on the record it read under its own lock or
 * transaction, so the fence check and the write it guards cannot interleave
 * with a new owner's claim.
 *
 * Retries (with `retry` options): every call but `createTask` without an
 * idempotency key is marked idempotent. Reads, `putList`, `markRelayed`,
 * `checkpointUnit` and `updateTask` are idempotent as such; a repeated
 * claim leaves the same owner holding the task; a repeated transition or
 * `putUnits` is refused by the stored state (ILLEGAL_TRANSITION, "already
 * has units"), never applied twice. A keyless create whose reply was lost
 * after commit would create a second task, so it runs once.
 */
export abstract class AbstractTaskStore implements TaskStore {
  protected readonly life: AdapterLifecycle;
  protected readonly rules: TaskRecordRules;

  protected constructor({ name, translate, rules = DEFAULT_TASK_RECORD_RULES, retry }: TaskStoreBaseOptions) {
    this.life = new AdapterLifecycle({ name, translate, retry });
    this.rules = rules;
  }

  createTask(input: NewTask, now: number): Promise<Task> {
    const create = async () => {
      checkNewTask(input, this.rules);
      checkNow(now, this.rules);
      return this._createTask(newTaskRecord(0, input, now));
    };
    // With a key a repeat answers the first task; without one it would store a second.
    return input?.idempotencyKey === undefined
      ? this.life.run('createTask', create)
      : this.life.idempotent('createTask', create);
  }

  getTask(id: number): Promise<Task | undefined> {
    return this.life.idempotent('getTask', async () => (isTaskId(id) ? this._getTask(id) : undefined));
  }

  getTaskByIdempotencyKey(key: string): Promise<Task | undefined> {
    return this.life.idempotent('getTaskByIdempotencyKey', async () => {
      checkIdString('idempotencyKey', key, true, MAX_IDEMPOTENCY_KEY_CHARS);
      return this._getTaskByIdempotencyKey(key);
    });
  }

  listTasks(query: TaskQuery = {}): Promise<TaskPage> {
    return this.life.idempotent('listTasks', async () => {
      const q = compileTaskQuery(query);
      if (q.accountIds?.length === 0) return { tasks: [], nextCursor: null };
      return this._listTasks(q);
    });
  }

  listLiveTasks(): Promise<Task[]> {
    return this.life.idempotent('listLiveTasks', () => this._listLiveTasks());
  }

  listTasksByContent(accountId: string, contentCrc: number): Promise<Task[]> {
    return this.life.idempotent('listTasksByContent', async () => {
      checkContentQuery(accountId, contentCrc);
      return this._listTasksByContent(accountId, contentCrc);
    });
  }

  claimTask(id: number, owner: string, now: number): Promise<Task> {
    return this.writeTask('claimTask', id, null, now, (task) => {
      checkIdString('owner', owner, false, this.rules.maxIdChars);
      return { ...task, epoch: task.epoch + 1, owner };
    });
  }

  transitionTask(id: number, fence: Fence, event: TaskEvent, patch: TaskPatch, now: number): Promise<Task> {
    return this.writeTask('transitionTask', id, fence, now, (task) => {
      const state = taskMachine.next(task.state, event);
      return { ...applyTaskPatch(task, patch, this.rules), state };
    });
  }

  updateTask(id: number, fence: Fence, patch: TaskPatch, now: number): Promise<Task> {
    return this.writeTask('updateTask', id, fence, now, (task) => applyTaskPatch(task, patch, this.rules));
  }

  putUnits(taskId: number, fence: Fence, units: readonly NewUnit[], now: number): Promise<ExecutionUnit[]> {
    return this.life.idempotent('putUnits', async () => {
      checkNewUnits(units, this.rules);
      checkNow(now, this.rules);
      const records = units.map((u) => newUnitRecord(taskId, u, now)).sort((a, b) => a.unitNo - b.unitNo);
      await this._putUnits(
        taskId,
        (task, hasUnits) => {
          checkFence(task, checkedFence(fence));
          if (hasUnits) throw new ValidationError(`task ${taskId} already has units`, { taskId });
        },
        records,
      );
      return records;
    });
  }

  listUnits(taskId: number): Promise<ExecutionUnit[]> {
    return this.life.idempotent('listUnits', async () => (isTaskId(taskId) ? this._listUnits(taskId) : []));
  }

  transitionUnit(
    taskId: number,
    unitNo: number,
    fence: Fence,
    event: UnitEvent,
    now: number,
    executorId?: string,
  ): Promise<ExecutionUnit> {
    return this.writeUnit('transitionUnit', taskId, unitNo, fence, now, (unit) =>
      transitionedUnit(unit, event, now, executorId, this.rules),
    );
  }

  checkpointUnit(
    taskId: number,
    unitNo: number,
    fence: Fence,
    progress: UnitProgress,
    now: number,
  ): Promise<ExecutionUnit> {
    // Idempotent: a replayed or out-of-order batch is ignored and the unit returned as stored.
    return this.writeUnit('checkpointUnit', taskId, unitNo, fence, now, (unit) =>
      applyUnitProgress(unit, progress, now),
    );
  }

  readOutbox(afterId: number, limit: number): Promise<OutboxEvent[]> {
    return this.life.idempotent('readOutbox', async () => {
      checkOutboxRead(afterId, limit);
      return this._readOutbox(afterId, limit);
    });
  }

  markRelayed(upToId: number): Promise<void> {
    return this.life.idempotent('markRelayed', async () => {
      if (!Number.isSafeInteger(upToId) || upToId < 0)
        throw new ValidationError('upToId must be a non-negative integer', { upToId });
      return this._markRelayed(upToId);
    });
  }

  putList(meta: ListMeta): Promise<void> {
    return this.life.idempotent('putList', async () => {
      checkListMeta(meta, this.rules);
      return this._putList(meta);
    });
  }

  getList(id: string): Promise<ListMeta | undefined> {
    return this.life.idempotent('getList', async () => (typeof id === 'string' ? this._getList(id) : undefined));
  }

  putProgress(taskId: number, fence: Fence, record: TaskProgressRecord): Promise<void> {
    return this.life.idempotent('putProgress', async () => {
      checkProgressRecord(record);
      checkNow(record.updatedAt, this.rules);
      const checked = checkedFence(fence);
      await this._putProgress(taskId, (task) => checkFence(task, checked), record);
    });
  }

  getProgress(taskId: number): Promise<TaskProgressRecord | undefined> {
    return this.life.idempotent('getProgress', async () => (isTaskId(taskId) ? this._getProgress(taskId) : undefined));
  }

  /** Waits for calls in flight, then closes the backend. Any later call fails with STORE_CLOSED; a second close is a no-op. */
  close(): Promise<void> {
    return this.life.close(() => this._close());
  }

  /**
   * One fenced read-modify-write of a task: the adapter reads it under its
   * lock; the fence (when the caller is an owner) is checked, `change`
   * builds the next record, version and updatedAt move, and the adapter
   * writes it. Anything thrown leaves the stored task untouched.
   */
  private writeTask(
    op: string,
    id: number,
    fence: Fence | null,
    now: number,
    change: (task: Task) => Task,
  ): Promise<Task> {
    return this.life.idempotent(op, async () => {
      checkNow(now, this.rules);
      return this._updateTask(id, (task) => {
        if (fence !== null) checkFence(task, checkedFence(fence));
        return { ...change(task), version: task.version + 1, updatedAt: now };
      });
    });
  }

  /** One fenced read-modify-write of a unit, under its task's lock. `change` returns the unit itself to mean "no change". */
  private writeUnit(
    op: string,
    taskId: number,
    unitNo: number,
    fence: Fence,
    now: number,
    change: (unit: ExecutionUnit) => ExecutionUnit,
  ): Promise<ExecutionUnit> {
    return this.life.idempotent(op, async () => {
      checkNow(now, this.rules);
      const guard = (task: TaskFence) => {
        checkFence(task, checkedFence(fence));
        checkUnitNo(unitNo);
      };
      return this._updateUnit(taskId, unitNo, guard, change);
    });
  }

  /** Stores a validated new task; `record.id` is 0, the store assigns the id. With an idempotency key already stored, answers that task instead. */
  protected abstract _createTask(record: Task): Promise<Task>;
  /** `id` is a valid task id. */
  protected abstract _getTask(id: number): Promise<Task | undefined>;
  protected abstract _getTaskByIdempotencyKey(key: string): Promise<Task | undefined>;
  /** A page of a validated query; `accountIds` is never empty. */
  protected abstract _listTasks(query: CompiledTaskQuery): Promise<TaskPage>;
  protected abstract _listLiveTasks(): Promise<Task[]>;
  protected abstract _listTasksByContent(accountId: string, contentCrc: number): Promise<Task[]>;
  /**
   * Under the task's lock: read it (taskNotFound when missing), write
   * `update(task)` (with its outbox event when the state changed), answer
   * what was written. Whatever `update` throws must leave the task untouched.
   */
  protected abstract _updateTask(id: number, update: (task: Task) => Task): Promise<Task>;
  /** Under the task's lock: read it (taskNotFound), call `guard(task, whether it has units)`, then store `records`. */
  protected abstract _putUnits(
    taskId: number,
    guard: (task: Task, hasUnits: boolean) => void,
    records: readonly ExecutionUnit[],
  ): Promise<void>;
  /** `taskId` is a valid task id; units in unitNo order. */
  protected abstract _listUnits(taskId: number): Promise<ExecutionUnit[]>;
  /**
   * Under the task's lock: read the task (taskNotFound), call `guard(task)`,
   * read the unit (unitNotFound), write `update(unit)` unless it answers the
   * unit itself, and answer the result.
   */
  protected abstract _updateUnit(
    taskId: number,
    unitNo: number,
    guard: (task: TaskFence) => void,
    update: (unit: ExecutionUnit) => ExecutionUnit,
  ): Promise<ExecutionUnit>;
  protected abstract _readOutbox(afterId: number, limit: number): Promise<OutboxEvent[]>;
  protected abstract _markRelayed(upToId: number): Promise<void>;
  protected abstract _putList(meta: ListMeta): Promise<void>;
  protected abstract _getList(id: string): Promise<ListMeta | undefined>;
  /** Under the task's lock: read it (taskNotFound), call `guard(task)`, then replace its progress record. */
  protected abstract _putProgress(
    taskId: number,
    guard: (task: TaskFence) => void,
    record: TaskProgressRecord,
  ): Promise<void>;
  /** `taskId` is a valid task id. */
  protected abstract _getProgress(taskId: number): Promise<TaskProgressRecord | undefined>;
  /** Releases the backend (called once, after the calls in flight). */
  protected abstract _close(): Promise<void>;
}
