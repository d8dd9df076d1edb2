import { ClassicLevel } from 'classic-level';
import {
  applyTaskPatch,
  applyUnitProgress,
  checkContentQuery,
  checkedFence,
  checkFence,
  checkIdString,
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
  transitionedUnit,
  taskMachine,
  type ExecutionUnit,
  type Fence,
  type ListMeta,
  type NewTask,
  type NewUnit,
  type Task,
  type TaskEvent,
  type UnitEvent,
} from '@herald/core/task';
import { ErrorCodes, NotFoundError, ValidationError } from '@herald/core';
import type { OutboxEvent, TaskPage, TaskPatch, TaskQuery, TaskStore, UnitProgress } from '@herald/core/ports';
import { decodeJson, EMPTY, encodeJson, key, prefixRange, readU64BE, tag } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { Lifecycle, toHeraldError, openLevelDb } from './lifecycle';

/**
 * The embedded TaskStore, on LevelDB (classic-level): one directory, one
 * process, no server. It passes the same conformance suite as the MySQL store.
 *
 * Key layout (a one-letter tag byte first; numbers big-endian so that byte
 * order is numeric order; strings UTF-16LE, length-prefixed when followed by
 * more key):
 *
 *   'm' "seq"                                    -> last task id handed out (u64)
 *   't' taskId:u64                               -> Task (JSON)
 *   'u' taskId:u64 unitNo:u32                    -> ExecutionUnit (JSON)
 *   'l' listId                                   -> ListMeta (JSON)
 *   'c' contentCrc:u32 accountId(len:u32 + chars) taskId:u64 -> ''   no-resend index
 *   'm' "outbox"                                 -> last outbox event id handed out (u64)
 *   'o' eventId:u64                              -> OutboxEvent (JSON), until relayed
 *   'k' idempotencyKey                           -> taskId (u64), written with its task
 *
 * Tasks iterate in id order; a task's units in unitNo order under one prefix.
 * The content index is written with the task (accountId and contentCrc never
 * change) and `filteredListId != null` is checked on read, so clearing a
 * filtered list needs no index update.
 *
 * Atomicity: LevelDB has no transactions. Every read-modify-write of one task
 * or of its units (fence check, state machine, write) runs under that task's
 * in-process lock (see KeyedMutex), and each write is one atomic put or batch.
 * Task creation runs under one more lock so ids and the persisted counter
 * advance together; the same lock makes idempotent creation exact (the 'k'
 * key is read, and written in the task's batch, under it). Unit writes check the fence but do not rewrite the task
 * record, so they do not change the task's version.
 *
 * The outbox: a creation and every write that changes a task's state put an
 * 'o' event and the outbox counter in the same batch as the task record.
 * Those batches run under one store-wide outbox lock, so event ids are
 * written in id order (a reader never sees event n+1 before event n, and the
 * persisted counter never moves backwards). `markRelayed` deletes the
 * relayed events rather than keeping a cursor: the log stays as small as the
 * relay's backlog, and the counter (not the last key) keeps ids from being
 * reused after the log empties.
 */
type Db = ClassicLevel<Buffer, Buffer>;

const SEQ_KEY = key(tag('m'), { tail: 'seq' });
const OUTBOX_SEQ_KEY = key(tag('m'), { tail: 'outbox' });
const TASKS = prefixRange(key(tag('t')));
const OUTBOX = prefixRange(key(tag('o')));
/** Lock key for task creation; task ids are positive, so 0 never names a task. */
const CREATE_LOCK = 0;
/** Lock key for outbox writes (ids handed out and written in order); never a task id either. */
const OUTBOX_LOCK = -1;

const taskKey = (id: number) => key(tag('t'), { u64: id });
const unitKey = (taskId: number, unitNo: number) => key(tag('u'), { u64: taskId }, { u32: unitNo });
const unitsOf = (taskId: number) => prefixRange(key(tag('u'), { u64: taskId }));
const listKey = (id: string) => key(tag('l'), { tail: id });
const contentPrefix = (accountId: string, crc: number) => key(tag('c'), { u32: crc }, { str: accountId });
const outboxKey = (id: number) => key(tag('o'), { u64: id });
const idempotencyKey = (k: string) => key(tag('k'), { tail: k });

type BatchOp = { type: 'put'; key: Buffer; value: Buffer };

/** A stored task; one written before tasks had a speed or a targeting query reads as having none. */
function decodeTask(value: Buffer): Task {
  const task = decodeJson<Task>(value);
  return { ...task, speed: task.speed ?? null, targeting: task.targeting ?? null };
}

function encodeId(id: number): Buffer {
  return key({ u64: id });
}

export class LevelTaskStore implements TaskStore {
  private readonly life = new Lifecycle('LevelTaskStore');
  private readonly locks = new KeyedMutex<number>();

  private constructor(
    private readonly db: Db,
    private lastId: number,
    private lastEventId: number,
  ) {}

  /** Opens (creating if needed) the store in directory `path`. Fails with UNAVAILABLE if another process holds it. */
  static async open(path: string): Promise<LevelTaskStore> {
    const db: Db = await openLevelDb(path, 'LevelTaskStore');
    try {
      // The counter is authoritative; the last task key guards against a counter older than the tasks.
      const seq = await db.get(SEQ_KEY);
      const [lastKey] = await db.keys({ ...TASKS, reverse: true, limit: 1 }).all();
      const lastId = Math.max(seq === undefined ? 0 : readU64BE(seq, 0), lastKey === undefined ? 0 : readU64BE(lastKey, 1));
      const outboxSeq = await db.get(OUTBOX_SEQ_KEY);
      const [lastEvent] = await db.keys({ ...OUTBOX, reverse: true, limit: 1 }).all();
      const lastEventId = Math.max(outboxSeq === undefined ? 0 : readU64BE(outboxSeq, 0), lastEvent === undefined ? 0 : readU64BE(lastEvent, 1));
      return new LevelTaskStore(db, lastId, lastEventId);
    } catch (error) {
      await db.close();
      throw toHeraldError(error, 'LevelTaskStore', 'open');
    }
  }

  createTask(input: NewTask, now: number): Promise<Task> {
    return this.life.run('createTask', () =>
      this.locks.run(CREATE_LOCK, async () => {
        checkNewTask(input);
        checkNow(now);
        if (input.idempotencyKey !== undefined) {
          const existing = await this.readTaskByKey(input.idempotencyKey);
          if (existing !== undefined) return existing;
        }
        const id = this.lastId + 1;
        const task = newTaskRecord(id, input, now);
        const ops: BatchOp[] = [
          { type: 'put', key: taskKey(id), value: encodeJson(task) },
          { type: 'put', key: SEQ_KEY, value: encodeId(id) },
          { type: 'put', key: Buffer.concat([contentPrefix(task.accountId, task.contentCrc), encodeId(id)]), value: EMPTY },
        ];
        if (task.idempotencyKey !== undefined) ops.push({ type: 'put', key: idempotencyKey(task.idempotencyKey), value: encodeId(id) });
        await this.writeWithEvent(ops, { taskId: id, from: null, to: task.state, version: task.version, at: now });
        this.lastId = id;
        return task;
      }),
    );
  }

  getTask(id: number): Promise<Task | undefined> {
    return this.life.run('getTask', () => this.readTask(id));
  }

  getTaskByIdempotencyKey(k: string): Promise<Task | undefined> {
    return this.life.run('getTaskByIdempotencyKey', async () => {
      checkIdString('idempotencyKey', k, true, MAX_IDEMPOTENCY_KEY_CHARS);
      return this.readTaskByKey(k);
    });
  }

  listTasks(query: TaskQuery = {}): Promise<TaskPage> {
    return this.life.run('listTasks', async () => {
      const q = compileTaskQuery(query);
      if (q.accountIds?.length === 0) return { tasks: [], nextCursor: null };
      const tasks: Task[] = [];
      let more = false;
      // Keyset scan in id order (or reverse), filtering as it goes; one extra match tells whether a next page exists.
      const range =
        q.order === 'desc'
          ? { gte: TASKS.gte, lt: q.beforeId === undefined ? TASKS.lt : taskKey(q.beforeId), reverse: true }
          : { gt: taskKey(q.afterId), lt: TASKS.lt };
      for await (const value of this.db.values(range)) {
        const task = decodeTask(value);
        if (q.state !== undefined && task.state !== q.state) continue;
        if (q.createdFrom !== undefined && task.createdAt < q.createdFrom) continue;
        if (q.createdBefore !== undefined && task.createdAt >= q.createdBefore) continue;
        if (q.accountId !== undefined && task.accountId !== q.accountId) continue;
        if (q.accountIds !== undefined && !q.accountIds.includes(task.accountId)) continue;
        if (tasks.length === q.limit) {
          more = true;
          break;
        }
        tasks.push(task);
      }
      return { tasks, nextCursor: more ? tasks[tasks.length - 1]!.id : null };
    });
  }

  listLiveTasks(): Promise<Task[]> {
    return this.life.run('listLiveTasks', async () => {
      const live: Task[] = [];
      for await (const value of this.db.values(TASKS)) {
        const task = decodeTask(value);
        if (!taskMachine.isTerminal(task.state)) live.push(task);
      }
      return live;
    });
  }

  listTasksByContent(accountId: string, contentCrc: number): Promise<Task[]> {
    return this.life.run('listTasksByContent', async () => {
      checkContentQuery(accountId, contentCrc);
      const keys = await this.db.keys(prefixRange(contentPrefix(accountId, contentCrc))).all();
      if (keys.length === 0) return [];
      const values = await this.db.getMany(keys.map((k) => taskKey(readU64BE(k, k.length - 8))));
      const found: Task[] = [];
      for (const value of values) {
        if (value === undefined) continue;
        const task = decodeTask(value);
        if (task.filteredListId !== null && task.accountId === accountId && task.contentCrc === contentCrc) found.push(task);
      }
      return found;
    });
  }

  claimTask(id: number, owner: string, now: number): Promise<Task> {
    return this.writeTask('claimTask', id, null, now, (task) => {
      if (typeof owner !== 'string') throw new ValidationError('owner must be a string');
      return { ...task, epoch: task.epoch + 1, owner };
    });
  }

  transitionTask(id: number, fence: Fence, event: TaskEvent, patch: TaskPatch, now: number): Promise<Task> {
    return this.writeTask('transitionTask', id, fence, now, (task) => {
      const state = taskMachine.next(task.state, event);
      return { ...applyTaskPatch(task, patch), state };
    });
  }

  updateTask(id: number, fence: Fence, patch: TaskPatch, now: number): Promise<Task> {
    return this.writeTask('updateTask', id, fence, now, (task) => applyTaskPatch(task, patch));
  }

  putUnits(taskId: number, fence: Fence, units: readonly NewUnit[], now: number): Promise<ExecutionUnit[]> {
    return this.life.run('putUnits', () =>
      this.locks.run(taskId, async () => {
        checkNewUnits(units);
        checkNow(now);
        const task = await this.loadTask(taskId);
        checkFence(task, checkedFence(fence));
        const existing = await this.db.keys({ ...unitsOf(taskId), limit: 1 }).all();
        if (existing.length > 0) throw new ValidationError(`task ${taskId} already has units`, { taskId });
        const records = units.map((u) => newUnitRecord(taskId, u, now)).sort((a, b) => a.unitNo - b.unitNo);
        if (records.length > 0) await this.db.batch(records.map((u) => ({ type: 'put' as const, key: unitKey(taskId, u.unitNo), value: encodeJson(u) })));
        return records;
      }),
    );
  }

  listUnits(taskId: number): Promise<ExecutionUnit[]> {
    return this.life.run('listUnits', async () => {
      if (!isTaskId(taskId)) return [];
      const values = await this.db.values(unitsOf(taskId)).all();
      return values.map((v) => decodeJson<ExecutionUnit>(v));
    });
  }

  transitionUnit(taskId: number, unitNo: number, fence: Fence, event: UnitEvent, now: number, executorId?: string): Promise<ExecutionUnit> {
    return this.writeUnit('transitionUnit', taskId, unitNo, fence, now, (unit) => transitionedUnit(unit, event, now, executorId));
  }

  checkpointUnit(taskId: number, unitNo: number, fence: Fence, progress: UnitProgress, now: number): Promise<ExecutionUnit> {
    // Idempotent: a replayed or out-of-order batch is ignored and the unit returned as stored.
    return this.writeUnit('checkpointUnit', taskId, unitNo, fence, now, (unit) => applyUnitProgress(unit, progress, now));
  }

  readOutbox(afterId: number, limit: number): Promise<OutboxEvent[]> {
    return this.life.run('readOutbox', async () => {
      checkOutboxRead(afterId, limit);
      const values = await this.db.values({ gt: outboxKey(afterId), lt: OUTBOX.lt, limit }).all();
      return values.map((v) => decodeJson<OutboxEvent>(v));
    });
  }

  markRelayed(upToId: number): Promise<void> {
    return this.life.run('markRelayed', () =>
      this.locks.run(OUTBOX_LOCK, async () => {
        if (!Number.isSafeInteger(upToId) || upToId < 0) throw new ValidationError('upToId must be a non-negative integer', { upToId });
        // Only events that exist now: one written later is not relayed, whatever its id.
        const last = Math.min(upToId, this.lastEventId);
        if (last > 0) await this.db.clear({ gte: OUTBOX.gte, lte: outboxKey(last) });
      }),
    );
  }

  putList(meta: ListMeta): Promise<void> {
    return this.life.run('putList', async () => {
      checkListMeta(meta);
      await this.db.put(listKey(meta.id), encodeJson(meta));
    });
  }

  getList(id: string): Promise<ListMeta | undefined> {
    return this.life.run('getList', async () => {
      if (typeof id !== 'string') return undefined;
      const value = await this.db.get(listKey(id));
      return value === undefined ? undefined : decodeJson<ListMeta>(value);
    });
  }

  /** Waits for calls in flight, then closes the database. Any later call fails with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this.db.close());
  }

  private async readTask(id: number): Promise<Task | undefined> {
    if (!isTaskId(id)) return undefined;
    const value = await this.db.get(taskKey(id));
    return value === undefined ? undefined : decodeTask(value);
  }

  private async readTaskByKey(k: string): Promise<Task | undefined> {
    const id = await this.db.get(idempotencyKey(k));
    return id === undefined ? undefined : this.readTask(readU64BE(id, 0));
  }

  private async loadTask(id: number): Promise<Task> {
    const task = await this.readTask(id);
    if (task === undefined) throw new NotFoundError(ErrorCodes.TASK_NOT_FOUND, `task ${id} not found`, { taskId: id });
    return task;
  }

  /**
   * One read-modify-write of a task under its lock: load, check the fence
   * (when the caller is an owner), let `change` build the next record (state
   * machine, patch), then bump version and updatedAt and write it in one put.
   * Anything `change` throws leaves the stored task untouched.
   */
  private writeTask(op: string, id: number, fence: Fence | null, now: number, change: (task: Task) => Task): Promise<Task> {
    return this.life.run(op, () =>
      this.locks.run(id, async () => {
        checkNow(now);
        const task = await this.loadTask(id);
        if (fence !== null) checkFence(task, checkedFence(fence));
        const next: Task = { ...change(task), version: task.version + 1, updatedAt: now };
        const put: BatchOp = { type: 'put', key: taskKey(id), value: encodeJson(next) };
        if (next.state === task.state) await this.db.put(put.key, put.value);
        else await this.writeWithEvent([put], { taskId: id, from: task.state, to: next.state, version: next.version, at: now });
        return next;
      }),
    );
  }

  /**
   * Writes `ops` and one outbox event in one batch, under the outbox lock: the
   * event gets the next id, and the counter moves with it.
   */
  private writeWithEvent(ops: BatchOp[], event: Omit<OutboxEvent, 'id'>): Promise<void> {
    return this.locks.run(OUTBOX_LOCK, async () => {
      const id = this.lastEventId + 1;
      const record: OutboxEvent = { id, ...event };
      await this.db.batch([...ops, { type: 'put', key: outboxKey(id), value: encodeJson(record) }, { type: 'put', key: OUTBOX_SEQ_KEY, value: encodeId(id) }]);
      this.lastEventId = id;
    });
  }

  /**
   * One read-modify-write of a unit, under its task's lock (the same lock as
   * claims, so a fence check and the write it guards cannot interleave with a
   * new owner's claim). `change` returns the unit itself to mean "no change".
   */
  private writeUnit(
    op: string,
    taskId: number,
    unitNo: number,
    fence: Fence,
    now: number,
    change: (unit: ExecutionUnit) => ExecutionUnit,
  ): Promise<ExecutionUnit> {
    return this.life.run(op, () =>
      this.locks.run(taskId, async () => {
        checkNow(now);
        const task = await this.loadTask(taskId);
        checkFence(task, checkedFence(fence));
        checkUnitNo(unitNo);
        const value = await this.db.get(unitKey(taskId, unitNo));
        if (value === undefined) throw new NotFoundError(ErrorCodes.NOT_FOUND, `task ${taskId} has no unit ${unitNo}`, { taskId, unitNo });
        const unit = decodeJson<ExecutionUnit>(value);
        const next = change(unit);
        if (next !== unit) await this.db.put(unitKey(taskId, unitNo), encodeJson(next));
        return next;
      }),
    );
  }
}
