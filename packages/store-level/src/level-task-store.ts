import { ClassicLevel } from 'classic-level';
import { LRUCache } from 'lru-cache';
import { AbstractTaskStore, taskNotFound, unitNotFound, type TaskFence } from '@herald/core/adapter';
import {
  DEFAULT_SEARCH_SCAN_BUDGET,
  isTaskId,
  matchesTextSearch,
  taskMachine,
  type CompiledTaskQuery,
  type ExecutionUnit,
  type ListMeta,
  type Task,
} from '@herald/core/task';
import type { OutboxEvent, TaskPage } from '@herald/core/ports';
import type { TaskProgressRecord } from '@herald/core/progress';
import { decodeJson, EMPTY, encodeJson, key, prefixRange, readU64BE, tag } from './keys';
import { KeyedMutex } from './keyed-mutex';
import { toHeraldError, openLevelDb } from './lifecycle';

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
 *   'p' taskId:u64                               -> TaskProgressRecord (JSON), replaced whole
 *
 * Tasks iterate in id order; a task's units in unitNo order under one prefix.
 * The content index is written with the task (accountId and contentCrc never
 * change) and `filteredListId != null` is checked on read, so clearing a
 * filtered list needs no index update.
 *
 * Input checks, fences, state machines and patches are the shared
 * AbstractTaskStore's (@herald/core); this class only reads and writes keys.
 *
 * Atomicity: LevelDB has no transactions. Every read-modify-write of one task
 * or of its units (the base's fence check and update, then the write) runs under that task's
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
const progressKey = (taskId: number) => key(tag('p'), { u64: taskId });

type BatchOp = { type: 'put'; key: Buffer; value: Buffer };

/** A stored task; one written before tasks had a speed, a targeting query or a no-resend bound reads as having none. */
function decodeTask(value: Buffer): Task {
  const task = decodeJson<Task>(value);
  return {
    ...task,
    speed: task.speed ?? null,
    targeting: task.targeting ?? null,
    noResendSince: task.noResendSince ?? null,
  };
}

function unitCacheKey(taskId: number, unitNo: number): string {
  return `${taskId}/${unitNo}`;
}

function encodeId(id: number): Buffer {
  return key({ u64: id });
}

/** How many tasks' epochs and units' values the write caches keep (a few hundred bytes each). */
const CACHED_ENTRIES = 10_000;

export class LevelTaskStore extends AbstractTaskStore {
  private readonly locks = new KeyedMutex<number>();
  /**
   * The write path's caches: this process alone holds the database (LevelDB's LOCK file) and writes
   * every task and unit through this class, so the last epoch and unit value it stored or read are the
   * stored ones. A unit checkpoint (one per confirmed batch) is then one put: the fence reads the epoch.
   */
  private readonly epochs = new LRUCache<number, number>({ max: CACHED_ENTRIES });
  private readonly unitValues = new LRUCache<string, Buffer>({ max: CACHED_ENTRIES });

  private constructor(
    private readonly db: Db,
    private lastId: number,
    private lastEventId: number,
    private readonly searchScanBudget: number,
  ) {
    super({ name: 'LevelTaskStore', translate: (error, op) => toHeraldError(error, 'LevelTaskStore', op) });
  }

  /**
   * Opens (creating if needed) the store in directory `path`. Fails with UNAVAILABLE if another process holds it.
   * `searchScanBudget`: how many tasks one page of a text search (TaskQuery.q) reads at most.
   */
  static async open(
    path: string,
    { searchScanBudget = DEFAULT_SEARCH_SCAN_BUDGET }: { searchScanBudget?: number } = {},
  ): Promise<LevelTaskStore> {
    if (!Number.isSafeInteger(searchScanBudget) || searchScanBudget < 1)
      throw new RangeError('searchScanBudget must be a positive integer');
    const db: Db = await openLevelDb(path, 'LevelTaskStore');
    try {
      // The counter is authoritative; the last task key guards against a counter older than the tasks.
      const seq = await db.get(SEQ_KEY);
      const [lastKey] = await db.keys({ ...TASKS, reverse: true, limit: 1 }).all();
      const lastId = Math.max(
        seq === undefined ? 0 : readU64BE(seq, 0),
        lastKey === undefined ? 0 : readU64BE(lastKey, 1),
      );
      const outboxSeq = await db.get(OUTBOX_SEQ_KEY);
      const [lastEvent] = await db.keys({ ...OUTBOX, reverse: true, limit: 1 }).all();
      const lastEventId = Math.max(
        outboxSeq === undefined ? 0 : readU64BE(outboxSeq, 0),
        lastEvent === undefined ? 0 : readU64BE(lastEvent, 1),
      );
      return new LevelTaskStore(db, lastId, lastEventId, searchScanBudget);
    } catch (error) {
      await db.close();
      throw toHeraldError(error, 'LevelTaskStore', 'open');
    }
  }

  protected _createTask(record: Task): Promise<Task> {
    return this.locks.run(CREATE_LOCK, async () => {
      if (record.idempotencyKey !== undefined) {
        const existing = await this._getTaskByIdempotencyKey(record.idempotencyKey);
        if (existing !== undefined) return existing;
      }
      const id = this.lastId + 1;
      const task = { ...record, id };
      const ops: BatchOp[] = [
        { type: 'put', key: taskKey(id), value: encodeJson(task) },
        { type: 'put', key: SEQ_KEY, value: encodeId(id) },
        {
          type: 'put',
          key: Buffer.concat([contentPrefix(task.accountId, task.contentCrc), encodeId(id)]),
          value: EMPTY,
        },
      ];
      if (task.idempotencyKey !== undefined)
        ops.push({ type: 'put', key: idempotencyKey(task.idempotencyKey), value: encodeId(id) });
      await this.writeWithEvent(ops, {
        taskId: id,
        from: null,
        to: task.state,
        version: task.version,
        at: task.createdAt,
      });
      this.lastId = id;
      this.epochs.set(id, task.epoch);
      return task;
    });
  }

  protected async _getTask(id: number): Promise<Task | undefined> {
    const value = await this.db.get(taskKey(id));
    return value === undefined ? undefined : decodeTask(value);
  }

  protected async _getTaskByIdempotencyKey(k: string): Promise<Task | undefined> {
    const id = await this.db.get(idempotencyKey(k));
    return id === undefined ? undefined : this._getTask(readU64BE(id, 0));
  }

  protected async _listTasks(q: CompiledTaskQuery): Promise<TaskPage> {
    const tasks: Task[] = [];
    let more = false;
    // Keyset scan in id order (or reverse), filtering as it goes; one extra match tells whether a next page exists.
    const range =
      q.order === 'desc'
        ? { gte: TASKS.gte, lt: q.beforeId === undefined ? TASKS.lt : taskKey(q.beforeId), reverse: true }
        : { gt: taskKey(q.afterId), lt: TASKS.lt };
    // A search reads at most its budget of tasks per page, then answers what it found with the
    // last id read as the cursor: a term that matches little would otherwise read all history.
    let budget = q.search === undefined ? Infinity : this.searchScanBudget;
    let lastRead = 0;
    for await (const value of this.db.values(range)) {
      if (budget === 0) return { tasks, nextCursor: lastRead };
      budget--;
      const task = decodeTask(value);
      lastRead = task.id;
      if (!matches(task, q)) continue;
      if (tasks.length === q.limit) {
        more = true;
        break;
      }
      tasks.push(task);
    }
    return { tasks, nextCursor: more ? tasks[tasks.length - 1]!.id : null };
  }

  protected async _listLiveTasks(): Promise<Task[]> {
    const live: Task[] = [];
    for await (const value of this.db.values(TASKS)) {
      const task = decodeTask(value);
      if (!taskMachine.isTerminal(task.state)) live.push(task);
    }
    return live;
  }

  protected async _listTasksByContent(accountId: string, contentCrc: number): Promise<Task[]> {
    const keys = await this.db.keys(prefixRange(contentPrefix(accountId, contentCrc))).all();
    if (keys.length === 0) return [];
    const values = await this.db.getMany(keys.map((k) => taskKey(readU64BE(k, k.length - 8))));
    const found: Task[] = [];
    for (const value of values) {
      if (value === undefined) continue;
      const task = decodeTask(value);
      if (task.filteredListId !== null && task.accountId === accountId && task.contentCrc === contentCrc)
        found.push(task);
    }
    return found;
  }

  /** Under the task's lock: one put, or one batch with the outbox event when the state changed. */
  protected _updateTask(id: number, update: (task: Task) => Task): Promise<Task> {
    return this.locks.run(id, async () => {
      const task = await this.loadTask(id);
      const next = update(task);
      const put: BatchOp = { type: 'put', key: taskKey(id), value: encodeJson(next) };
      if (next.state === task.state) await this.db.put(put.key, put.value);
      else
        await this.writeWithEvent([put], {
          taskId: id,
          from: task.state,
          to: next.state,
          version: next.version,
          at: next.updatedAt,
        });
      this.epochs.set(id, next.epoch);
      return next;
    });
  }

  protected _putUnits(
    taskId: number,
    guard: (task: Task, hasUnits: boolean) => void,
    records: readonly ExecutionUnit[],
  ): Promise<void> {
    return this.locks.run(taskId, async () => {
      const task = await this.loadTask(taskId);
      const existing = await this.db.keys({ ...unitsOf(taskId), limit: 1 }).all();
      guard(task, existing.length > 0);
      if (records.length === 0) return;
      const values = records.map((u) => encodeJson(u));
      await this.db.batch(
        records.map((u, i) => ({ type: 'put' as const, key: unitKey(taskId, u.unitNo), value: values[i]! })),
      );
      records.forEach((u, i) => this.unitValues.set(unitCacheKey(taskId, u.unitNo), values[i]!));
    });
  }

  protected async _listUnits(taskId: number): Promise<ExecutionUnit[]> {
    const values = await this.db.values(unitsOf(taskId)).all();
    return values.map((v) => decodeJson<ExecutionUnit>(v));
  }

  /**
   * Under its task's lock (the same lock as claims, so a fence check and the
   * write it guards cannot interleave with a new owner's claim).
   */
  protected _updateUnit(
    taskId: number,
    unitNo: number,
    guard: (task: TaskFence) => void,
    update: (unit: ExecutionUnit) => ExecutionUnit,
  ): Promise<ExecutionUnit> {
    return this.locks.run(taskId, async () => {
      guard(await this.fenceOf(taskId));
      const cacheKey = unitCacheKey(taskId, unitNo);
      const value = this.unitValues.get(cacheKey) ?? (await this.db.get(unitKey(taskId, unitNo)));
      if (value === undefined) throw unitNotFound(taskId, unitNo);
      const unit = decodeJson<ExecutionUnit>(value);
      const next = update(unit);
      if (next === unit) {
        this.unitValues.set(cacheKey, value);
        return next;
      }
      const written = encodeJson(next);
      await this.db.put(unitKey(taskId, unitNo), written);
      this.unitValues.set(cacheKey, written);
      return next;
    });
  }

  protected async _readOutbox(afterId: number, limit: number): Promise<OutboxEvent[]> {
    const values = await this.db.values({ gt: outboxKey(afterId), lt: OUTBOX.lt, limit }).all();
    return values.map((v) => decodeJson<OutboxEvent>(v));
  }

  protected _markRelayed(upToId: number): Promise<void> {
    return this.locks.run(OUTBOX_LOCK, async () => {
      // Only events that exist now: one written later is not relayed, whatever its id.
      const last = Math.min(upToId, this.lastEventId);
      if (last > 0) await this.db.clear({ gte: OUTBOX.gte, lte: outboxKey(last) });
    });
  }

  protected _putList(meta: ListMeta): Promise<void> {
    return this.db.put(listKey(meta.id), encodeJson(meta));
  }

  protected async _getList(id: string): Promise<ListMeta | undefined> {
    const value = await this.db.get(listKey(id));
    return value === undefined ? undefined : decodeJson<ListMeta>(value);
  }

  /** Under the task's lock, so the fence check and the put cannot interleave with a new owner's claim. */
  protected _putProgress(taskId: number, guard: (task: TaskFence) => void, record: TaskProgressRecord): Promise<void> {
    return this.locks.run(taskId, async () => {
      guard(await this.fenceOf(taskId));
      await this.db.put(progressKey(taskId), encodeJson(record));
    });
  }

  protected async _getProgress(taskId: number): Promise<TaskProgressRecord | undefined> {
    const value = await this.db.get(progressKey(taskId));
    return value === undefined ? undefined : decodeJson<TaskProgressRecord>(value);
  }

  protected _close(): Promise<void> {
    return this.db.close();
  }

  private async loadTask(id: number): Promise<Task> {
    const task = isTaskId(id) ? await this._getTask(id) : undefined;
    if (task === undefined) throw taskNotFound(id);
    this.epochs.set(id, task.epoch);
    return task;
  }

  /** The task's id and stored epoch, from the cache when this process wrote or read it last (taskNotFound otherwise). */
  private async fenceOf(id: number): Promise<TaskFence> {
    const epoch = this.epochs.get(id);
    return epoch === undefined ? this.loadTask(id) : { id, epoch };
  }

  /**
   * Writes `ops` and one outbox event in one batch, under the outbox lock: the
   * event gets the next id, and the counter moves with it.
   */
  private writeWithEvent(ops: BatchOp[], event: Omit<OutboxEvent, 'id'>): Promise<void> {
    return this.locks.run(OUTBOX_LOCK, async () => {
      const id = this.lastEventId + 1;
      const record: OutboxEvent = { id, ...event };
      await this.db.batch([
        ...ops,
        { type: 'put', key: outboxKey(id), value: encodeJson(record) },
        { type: 'put', key: OUTBOX_SEQ_KEY, value: encodeId(id) },
      ]);
      this.lastEventId = id;
    });
  }
}

/** Whether a task passes a listing's filters (the id range is the scan's). */
function matches(task: Task, q: CompiledTaskQuery): boolean {
  if (q.state !== undefined && task.state !== q.state) return false;
  if (q.createdFrom !== undefined && task.createdAt < q.createdFrom) return false;
  if (q.createdBefore !== undefined && task.createdAt >= q.createdBefore) return false;
  if (q.accountId !== undefined && task.accountId !== q.accountId) return false;
  if (q.accountIds !== undefined && !q.accountIds.includes(task.accountId)) return false;
  return q.search === undefined || matchesTextSearch(q.search, task.id, [task.content.title, task.content.body]);
}
