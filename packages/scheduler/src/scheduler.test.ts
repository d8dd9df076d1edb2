import { compileConfig, HashRing, type NewTask, type Task } from '@herald/core';
import { LevelTaskStore } from '@herald/store-level';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { createPull, createPush, inprocEndpoint, type Message, type PullChannel, type PushChannel } from '@herald/transport';
import { startScheduler, type Scheduler } from './scheduler';

/**
 * The scheduler alone, against a real task store and real sockets, with a
 * scripted dispatcher+executor that answers every pre-processing request with
 * one unit of `kept` recipients and completes each unit in one batch.
 */
describe('scheduler', () => {
  let dir: TempDir;
  let store: LevelTaskStore;
  let inbox: PullChannel;
  let dispatcherInbox: PullChannel;
  let toScheduler: PushChannel;
  let toDispatcher: PushChannel;
  let schedulers: Scheduler[];
  let seen: Message[];
  let hold: Set<number>;

  const config = compileConfig({ scheduler: { slots: 1, tickMs: 20 } });

  function newTask(overrides: Partial<NewTask> = {}): NewTask {
    const now = Date.now();
    return { accountId: 'acme', listId: 'l_1', content: { body: 'x' }, contentCrc: 1, priority: 'normal', sendAt: now, expiresAt: now + 3_600_000, listCount: 10, ...overrides };
  }

  beforeEach(async () => {
    dir = await makeTempDir('herald-scheduler-');
    store = await LevelTaskStore.open(dir.path);
    const schedulerEndpoint = inprocEndpoint('scheduler-test');
    const dispatcherEndpoint = inprocEndpoint('dispatcher-test');
    inbox = await createPull({ name: 'scheduler', endpoint: schedulerEndpoint, highWaterMark: 64 });
    dispatcherInbox = await createPull({ name: 'dispatcher', endpoint: dispatcherEndpoint, highWaterMark: 64 });
    toScheduler = await createPush({ name: 'to-scheduler', endpoints: [schedulerEndpoint], highWaterMark: 64 });
    toDispatcher = await createPush({ name: 'to-dispatcher', endpoints: [dispatcherEndpoint], highWaterMark: 64 });
    schedulers = [];
    seen = [];
    hold = new Set();
    void (async () => {
      for await (const message of dispatcherInbox.messages()) {
        seen.push(message);
        if (message.kind === 'preprocess.request') {
          await toScheduler.send({ kind: 'preprocess.result', ok: true, taskId: message.taskId, epoch: message.epoch, filteredListId: `f_${message.taskId}`, total: 10, kept: 10, removed: {}, units: [{ start: 0, end: 10, executorId: 'e1' }] });
        } else if (message.kind === 'unit.run' && !hold.has(message.taskId)) {
          await toScheduler.send({ kind: 'unit.progress', taskId: message.taskId, epoch: message.epoch, unitNo: message.unitNo, from: message.from, to: message.end, delivered: 3, offline: message.end - message.from - 3, done: true });
        }
      }
    })();
  });

  afterEach(async () => {
    for (const scheduler of schedulers) await scheduler.stop();
    toScheduler.close();
    toDispatcher.close();
    dispatcherInbox.close();
    await store.close();
    await dir.remove();
  });

  async function start(ring?: () => HashRing, sweepMs?: number): Promise<Scheduler> {
    const scheduler = await startScheduler({ config, store, inbox, toDispatcher, ...(ring ? { ring } : {}), ...(sweepMs ? { sweepMs } : {}) });
    schedulers.push(scheduler);
    return scheduler;
  }

  const stateOf = async (id: number) => (await store.getTask(id))!.state;
  const waitState = (id: number, state: Task['state']) => waitFor(async () => (await stateOf(id)) === state, { timeoutMs: 10_000, message: `task ${id} never ${state}` });

  it('drives a submitted task through every stage to COMPLETED with the unit totals', async () => {
    await start();
    const task = await store.createTask(newTask(), Date.now());
    await toScheduler.send({ kind: 'task.submitted', taskId: task.id });
    await waitState(task.id, 'COMPLETED');
    const done = (await store.getTask(task.id))!;
    expect(done.report).toMatchObject({ total: 10, kept: 10, delivered: 3, offline: 7, units: 1, unitsDone: 1 });
    expect(done.epoch).toBe(1);
    expect((await store.listUnits(task.id)).map((u) => [u.state, u.checkpoint])).toEqual([['DONE', 10]]);
  });

  it('admits by score when slots are short: a real-time task goes before earlier normal ones', async () => {
    await start();
    hold.add(1); // the first task keeps the only slot until released
    const first = await store.createTask(newTask(), Date.now());
    await toScheduler.send({ kind: 'task.submitted', taskId: first.id });
    await waitState(first.id, 'SENDING');
    const normal = await store.createTask(newTask(), Date.now());
    const urgent = await store.createTask(newTask({ priority: 'realtime' }), Date.now());
    await toScheduler.send({ kind: 'task.submitted', taskId: normal.id });
    await toScheduler.send({ kind: 'task.submitted', taskId: urgent.id });
    await waitState(normal.id, 'QUEUED');
    await waitState(urgent.id, 'QUEUED');
    await toScheduler.send({ kind: 'unit.progress', taskId: first.id, epoch: 1, unitNo: 0, from: 0, to: 10, delivered: 10, offline: 0, done: true });
    await waitState(normal.id, 'COMPLETED');
    const admitted = seen.filter((m) => m.kind === 'preprocess.request').map((m) => m.taskId);
    expect(admitted).toEqual([first.id, urgent.id, normal.id]);
  });

  it('waits for the send time, then sends', async () => {
    await start();
    const task = await store.createTask(newTask({ sendAt: Date.now() + 300 }), Date.now());
    await toScheduler.send({ kind: 'task.submitted', taskId: task.id });
    await waitState(task.id, 'SCHEDULED');
    await waitState(task.id, 'COMPLETED');
  });

  it('recovers live tasks at start: a task left SENDING resumes its units from their checkpoints', async () => {
    const task = await store.createTask(newTask(), Date.now());
    const owner = await store.claimTask(task.id, 'old-scheduler', Date.now());
    const fence = { epoch: owner.epoch };
    for (const event of ['enqueue', 'admit'] as const) await store.transitionTask(task.id, fence, event, {}, Date.now());
    await store.transitionTask(task.id, fence, 'preprocessed', { filteredListId: 'f_1', report: { total: 10, kept: 10, units: 1 } }, Date.now());
    await store.putUnits(task.id, fence, [{ unitNo: 0, start: 0, end: 10, executorId: 'e1' }], Date.now());
    await store.transitionTask(task.id, fence, 'dispatched', {}, Date.now());
    await store.transitionUnit(task.id, 0, fence, 'assign', Date.now(), 'e1');
    await store.checkpointUnit(task.id, 0, fence, { from: 0, to: 4, delivered: 1, offline: 3 }, Date.now());

    await start();
    await waitState(task.id, 'COMPLETED');
    const run = seen.find((m) => m.kind === 'unit.run');
    expect(run).toMatchObject({ kind: 'unit.run', taskId: task.id, from: 4, end: 10 });
    expect(seen.some((m) => m.kind === 'preprocess.request')).toBe(false);
    const done = (await store.getTask(task.id))!;
    expect(done.epoch).toBe(2);
    expect(done.report).toMatchObject({ delivered: 4, offline: 6 });
  });

  it('takes only the tasks the ring gives it', async () => {
    const ring = new HashRing(['scheduler-1', 'scheduler-2']);
    await start(() => ring);
    const tasks: Task[] = [];
    for (let i = 0; i < 20; i++) tasks.push(await store.createTask(newTask(), Date.now()));
    for (const task of tasks) await toScheduler.send({ kind: 'task.submitted', taskId: task.id });
    const mine = tasks.filter((t) => ring.ownerOf(t.id) === 'scheduler-1');
    const theirs = tasks.filter((t) => ring.ownerOf(t.id) !== 'scheduler-1');
    expect(mine.length).toBeGreaterThan(0);
    expect(theirs.length).toBeGreaterThan(0);
    for (const task of mine) await waitState(task.id, 'COMPLETED');
    for (const task of theirs) expect(await stateOf(task.id)).toBe('CREATED');
  });

  it('drops a task at once when a newer owner fences it out', async () => {
    // No sweep during the test: the ring still names this scheduler, so a sweep would take the task back.
    const scheduler = await start(undefined, 3_600_000);
    hold.add(1);
    const task = await store.createTask(newTask(), Date.now());
    await toScheduler.send({ kind: 'task.submitted', taskId: task.id });
    await waitState(task.id, 'SENDING');
    await store.claimTask(task.id, 'usurper', Date.now());
    await toScheduler.send({ kind: 'unit.progress', taskId: task.id, epoch: 1, unitNo: 0, from: 0, to: 10, delivered: 10, offline: 0, done: true });
    await waitFor(() => scheduler.stats().owned === 0, { timeoutMs: 10_000, message: 'fenced task still owned' });
    const after = (await store.getTask(task.id))!;
    expect(after.state).toBe('SENDING');
    expect(after.owner).toBe('usurper');
    expect((await store.listUnits(task.id))[0]!.checkpoint).toBe(0);
  });
});
