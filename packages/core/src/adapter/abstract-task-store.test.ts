import { ErrorCodes, HeraldError, isHeraldError } from '../errors';
import type { OutboxEvent, TaskPage } from '../ports/task-store';
import type { ExecutionUnit, ListMeta, NewTask, Task } from '../task/model';
import type { CompiledTaskQuery } from '../task/validate';
import type { RetryOptions } from '../retry/retry';
import { AbstractTaskStore, taskNotFound, unitNotFound } from './abstract-task-store';

const NOW = 1_700_000_000_000;
const unavailable = () => new HeraldError(ErrorCodes.UNAVAILABLE, 'server restarting', { retriable: true });

function newTask(overrides: Partial<NewTask> = {}): NewTask {
  return {
    accountId: 'acct-1',
    listId: 'list-1',
    content: { body: 'hi' },
    contentCrc: 1,
    priority: 'normal',
    sendAt: NOW,
    expiresAt: NOW + 1000,
    listCount: 10,
    ...overrides,
  };
}

/** A fake clock: sleeping advances it, nothing waits for real. */
function fakeTime(): RetryOptions & { waits: number[] } {
  let now = 0;
  const waits: number[] = [];
  return { now: () => now, sleep: async (ms: number) => void (waits.push(ms), (now += ms)), waits, random: () => 0.5 };
}

/**
 * The smallest adapter: Maps for storage, a counter of hook calls, and an
 * outage switch (`failures`: how many next hook calls fail UNAVAILABLE,
 * after doing their work when `lostReplies`).
 */
class MapTaskStore extends AbstractTaskStore {
  readonly tasks = new Map<number, Task>();
  readonly units = new Map<number, ExecutionUnit[]>();
  hookCalls = 0;
  failures = 0;
  lostReplies = false;

  constructor(retry?: RetryOptions) {
    super({
      name: 'MapTaskStore',
      translate: (error, op) =>
        isHeraldError(error) ? error : new HeraldError(ErrorCodes.INTERNAL, `${op}: ${String(error)}`),
      retry,
    });
  }

  /** Runs a hook's work, then fails it as an outage would (before the work, or after it when the reply is lost). */
  private async hook<T>(work: () => T): Promise<T> {
    this.hookCalls++;
    if (this.failures > 0 && !this.lostReplies) {
      this.failures--;
      throw unavailable();
    }
    const result = work();
    if (this.failures > 0) {
      this.failures--;
      throw unavailable();
    }
    return result;
  }

  protected _createTask(record: Task) {
    return this.hook(() => {
      const task = { ...record, id: this.tasks.size + 1 };
      this.tasks.set(task.id, task);
      return task;
    });
  }
  protected _getTask(id: number) {
    return this.hook(() => this.tasks.get(id));
  }
  protected _getTaskByIdempotencyKey(key: string) {
    return this.hook(() => [...this.tasks.values()].find((t) => t.idempotencyKey === key));
  }
  protected _listTasks(q: CompiledTaskQuery): Promise<TaskPage> {
    return this.hook(() => ({ tasks: [...this.tasks.values()].slice(0, q.limit), nextCursor: null }));
  }
  protected _listLiveTasks() {
    return this.hook(() => [...this.tasks.values()]);
  }
  protected _listTasksByContent() {
    return this.hook((): Task[] => []);
  }
  protected _updateTask(id: number, update: (task: Task) => Task) {
    return this.hook(() => {
      const task = this.tasks.get(id);
      if (task === undefined) throw taskNotFound(id);
      const next = update(task);
      this.tasks.set(id, next);
      return next;
    });
  }
  protected _putUnits(
    taskId: number,
    guard: (task: Task, hasUnits: boolean) => void,
    records: readonly ExecutionUnit[],
  ) {
    return this.hook(() => {
      const task = this.tasks.get(taskId);
      if (task === undefined) throw taskNotFound(taskId);
      guard(task, this.units.has(taskId));
      this.units.set(taskId, [...records]);
    });
  }
  protected _listUnits(taskId: number) {
    return this.hook(() => this.units.get(taskId) ?? []);
  }
  protected _updateUnit(
    taskId: number,
    unitNo: number,
    guard: (task: Task) => void,
    update: (unit: ExecutionUnit) => ExecutionUnit,
  ) {
    return this.hook(() => {
      const task = this.tasks.get(taskId);
      if (task === undefined) throw taskNotFound(taskId);
      guard(task);
      const units = this.units.get(taskId) ?? [];
      const at = units.findIndex((u) => u.unitNo === unitNo);
      if (at < 0) throw unitNotFound(taskId, unitNo);
      units[at] = update(units[at]!);
      return units[at]!;
    });
  }
  protected _readOutbox() {
    return this.hook((): OutboxEvent[] => []);
  }
  protected _markRelayed() {
    return this.hook(() => undefined);
  }
  protected _putList() {
    return this.hook(() => undefined);
  }
  protected _getList() {
    return this.hook((): ListMeta | undefined => undefined);
  }
  protected _putProgress() {
    return this.hook(() => undefined);
  }
  protected _getProgress() {
    return this.hook(() => undefined);
  }
  protected async _close() {}
}

describe('AbstractTaskStore', () => {
  it('validates once, before the hook: bad input never reaches the storage', async () => {
    const store = new MapTaskStore();
    await expect(store.createTask(newTask({ priority: 'urgent' as never }), NOW)).rejects.toMatchObject({
      code: ErrorCodes.VALIDATION_FAILED,
    });
    await expect(store.createTask(newTask(), Number.NaN)).rejects.toMatchObject({ code: ErrorCodes.VALIDATION_FAILED });
    await expect(store.readOutbox(-1, 10)).rejects.toMatchObject({ code: ErrorCodes.VALIDATION_FAILED });
    await expect(store.markRelayed(1.5)).rejects.toMatchObject({ code: ErrorCodes.VALIDATION_FAILED });
    await expect(store.listTasks({ limit: 0 })).rejects.toMatchObject({ code: ErrorCodes.VALIDATION_FAILED });
    expect(store.hookCalls).toBe(0);
    // Ids that cannot name a task, an empty account list: answered without the storage.
    expect(await store.getTask(-1)).toBeUndefined();
    expect(await store.listUnits(0)).toEqual([]);
    expect(await store.listTasks({ accountIds: [] })).toEqual({ tasks: [], nextCursor: null });
    expect(store.hookCalls).toBe(0);
  });

  it('builds records, checks fences and moves versions itself: the adapter only stores', async () => {
    const store = new MapTaskStore();
    const task = await store.createTask(newTask(), NOW);
    expect(task).toMatchObject({ id: 1, state: 'CREATED', version: 1, epoch: 0, createdAt: NOW });
    const claimed = await store.claimTask(task.id, 'scheduler-1', NOW + 1);
    expect(claimed).toMatchObject({ epoch: 1, owner: 'scheduler-1', version: 2, updatedAt: NOW + 1 });
    await expect(store.transitionTask(task.id, { epoch: 0 }, 'enqueue', {}, NOW + 2)).rejects.toMatchObject({
      code: ErrorCodes.FENCED,
    });
    await expect(store.transitionTask(task.id, { epoch: 1 }, 'complete', {}, NOW + 2)).rejects.toMatchObject({
      code: ErrorCodes.ILLEGAL_TRANSITION,
    });
    expect(store.tasks.get(task.id)).toEqual(claimed);
    expect(await store.transitionTask(task.id, { epoch: 1 }, 'enqueue', {}, NOW + 3)).toMatchObject({
      state: 'QUEUED',
      version: 3,
    });

    const units = await store.putUnits(
      task.id,
      { epoch: 1 },
      [
        { unitNo: 1, start: 50, end: 100, executorId: 'e' },
        { unitNo: 0, start: 0, end: 50, executorId: 'e' },
      ],
      NOW,
    );
    expect(units.map((u) => u.unitNo)).toEqual([0, 1]);
    await expect(store.putUnits(task.id, { epoch: 1 }, [], NOW)).rejects.toMatchObject({
      code: ErrorCodes.VALIDATION_FAILED,
    });
    await expect(store.transitionUnit(task.id, 0, { epoch: 0 }, 'start', NOW)).rejects.toMatchObject({
      code: ErrorCodes.FENCED,
    });
    await expect(store.transitionUnit(task.id, 7, { epoch: 1 }, 'start', NOW)).rejects.toMatchObject({
      code: ErrorCodes.NOT_FOUND,
    });
    await expect(store.transitionUnit(task.id, -1, { epoch: 1 }, 'start', NOW)).rejects.toMatchObject({
      code: ErrorCodes.VALIDATION_FAILED,
    });
  });

  it('refuses every call after close with STORE_CLOSED', async () => {
    const store = new MapTaskStore();
    await store.close();
    await expect(store.getTask(1)).rejects.toMatchObject({
      code: ErrorCodes.STORE_CLOSED,
      message: 'MapTaskStore.getTask: the store is closed',
    });
    await expect(store.createTask(newTask(), NOW)).rejects.toMatchObject({ code: ErrorCodes.STORE_CLOSED });
    await store.close();
  });

  it('retries the calls safe to repeat through an outage, with retry options', async () => {
    const time = fakeTime();
    const store = new MapTaskStore(time);
    const task = await store.createTask(newTask(), NOW);
    store.failures = 2;
    expect(await store.getTask(task.id)).toEqual(task);
    expect(time.waits).toHaveLength(2);
    store.failures = 1;
    store.lostReplies = true;
    // A repeated claim leaves the same owner holding the task.
    expect(await store.claimTask(task.id, 'scheduler-1', NOW)).toMatchObject({ owner: 'scheduler-1' });
  });

  it('runs a keyless createTask once: a reply lost after the write must not store a second task', async () => {
    const time = fakeTime();
    const store = new MapTaskStore(time);
    store.failures = 1;
    store.lostReplies = true;
    await expect(store.createTask(newTask(), NOW)).rejects.toMatchObject({ code: ErrorCodes.UNAVAILABLE });
    expect(store.tasks.size).toBe(1);
    expect(time.waits).toEqual([]);
  });

  it('retries a createTask with an idempotency key, which the stored key answers', async () => {
    const time = fakeTime();
    const store = new MapTaskStore(time);
    store.failures = 1;
    expect(await store.createTask(newTask({ idempotencyKey: 'k-1' }), NOW)).toMatchObject({
      id: 1,
      idempotencyKey: 'k-1',
    });
    expect(time.waits).toHaveLength(1);
  });

  it('without retry options, runs every call once', async () => {
    const store = new MapTaskStore();
    store.failures = 1;
    await expect(store.getTask(1)).rejects.toMatchObject({ code: ErrorCodes.UNAVAILABLE });
    expect(store.hookCalls).toBe(1);
  });
});
