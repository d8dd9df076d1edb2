import type { ExecutionUnit, Task } from '@herald/core/task';
import { TaskTable, unitTotals } from './task-table';
import { openHarness, ownedTask, TO_SENDING, type Harness } from './test-harness';

describe('TaskTable', () => {
  let h: Harness;
  let tasks: TaskTable;
  beforeEach(async () => {
    h = await openHarness();
    tasks = new TaskTable(1_000);
  });
  afterEach(() => h.close());

  const unit = (state: ExecutionUnit['state'], delivered: number, offline: number): ExecutionUnit => ({
    taskId: 1,
    unitNo: 0,
    start: 0,
    end: 10,
    executorId: 'e1',
    state,
    checkpoint: delivered + offline,
    delivered,
    offline,
    updatedAt: 0,
  });

  it('forgets a task whole: its entry, its place in the ready queue and its slot', async () => {
    const task = await ownedTask(h, ['enqueue']);
    const entry = tasks.hold(task);
    tasks.takeSlot(entry);
    tasks.enqueue(task.id, 5);
    entry.scheduled = true;
    expect([tasks.size, tasks.active, tasks.queued, tasks.scheduled]).toEqual([1, 1, 1, 1]);
    tasks.forget(task.id);
    expect([tasks.size, tasks.active, tasks.queued, tasks.scheduled]).toEqual([0, 0, 0, 0]);
    expect(tasks.get(task.id)).toBeUndefined();
    // Held again (adopted back), it starts afresh.
    expect(tasks.hold(task)).toMatchObject({
      active: false,
      scheduled: false,
      units: undefined,
      closedEpoch: undefined,
      reached: false,
      lastReportAt: 0,
    });
  });

  it('keeps one entry per task: holding a newer copy updates it, taking a slot twice counts once', async () => {
    const task = await ownedTask(h);
    const entry = tasks.hold(task);
    entry.closedEpoch = 1;
    const newer: Task = { ...task, epoch: 2 };
    expect(tasks.hold(newer)).toBe(entry);
    expect(tasks.task(task.id)).toBe(newer);
    expect(entry.closedEpoch).toBe(1);
    tasks.takeSlot(entry);
    tasks.takeSlot(entry);
    expect(tasks.active).toBe(1);
  });

  it('releases a slot with the running units and their stall clocks, keeping a live task and forgetting a finished one', async () => {
    const live = await ownedTask(h, TO_SENDING);
    const entry = tasks.hold(live);
    tasks.takeSlot(entry);
    entry.units = [unit('RUNNING', 3, 0)];
    entry.unitStalls.isStalled(live.id, 0, 3, 0);
    tasks.release(live.id);
    expect(tasks.active).toBe(0);
    expect(entry.units).toBeUndefined();
    expect(entry.unitStalls.size).toBe(0);
    expect(tasks.has(live.id)).toBe(true);

    const finished = await ownedTask(h, ['enqueue', 'admit', 'fail']);
    tasks.takeSlot(tasks.hold(finished));
    tasks.release(finished.id);
    expect(tasks.has(finished.id)).toBe(false);
    expect(tasks.active).toBe(0);
  });

  it('serves the ready queue by score, moves a task enqueued again, and re-keys by a new score', async () => {
    const [a, b, c] = [await ownedTask(h), await ownedTask(h), await ownedTask(h)];
    for (const task of [a, b, c]) tasks.hold(task);
    tasks.enqueue(a.id, 1);
    tasks.enqueue(b.id, 3);
    tasks.enqueue(c.id, 2);
    tasks.enqueue(a.id, 4); // moved, not queued twice
    expect(tasks.queued).toBe(3);
    expect(tasks.peekReady()).toBe(a.id);
    tasks.rekey((task) => (task.id === c.id ? 10 : 0));
    expect([tasks.popReady(), tasks.queued]).toEqual([c.id, 2]);
    tasks.dequeue(b.id);
    expect([tasks.popReady(), tasks.popReady()]).toEqual([a.id, undefined]);
  });

  it('totals delivered, offline and finished units', () => {
    expect(unitTotals(undefined)).toEqual({ delivered: 0, offline: 0, unitsDone: 0 });
    expect(unitTotals([unit('DONE', 3, 7), unit('RUNNING', 2, 1)])).toEqual({ delivered: 5, offline: 8, unitsDone: 1 });
  });
});
