import { compileConfig } from '@herald/core/config';
import { HashRing } from '@herald/core/ring';
import type { NewTask, Task } from '@herald/core/task';
import { LevelTaskStore } from '@herald/store-level';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { createPull, createPush, inprocEndpoint, type Message, type PushChannel } from '@herald/transport';
import { startScheduler, type Scheduler } from './scheduler';

/**
 * Two schedulers sharing one task store and one mutable ring, each with its
 * own inbox and a scripted dispatcher+executor: a pre-processing request gets
 * one unit of 10 recipients; a unit.run is recorded and, unless the test holds
 * sends, completed in one batch reported to the scheduler that sent it.
 */
describe('scheduler following the ring', () => {
  interface Member {
    id: string;
    scheduler: Scheduler;
    /** The scheduler's inbox, as executors and the interface send to it. */
    toScheduler: PushChannel;
    /** What this scheduler sent to its dispatcher. */
    seen: Message[];
  }

  let dir: TempDir;
  let store: LevelTaskStore;
  let ring: HashRing;
  let autoComplete: boolean;
  let members: Member[];
  let closers: (() => void)[];

  function newTask(overrides: Partial<NewTask> = {}): NewTask {
    const now = Date.now();
    return {
      accountId: 'acme',
      listId: 'l_1',
      content: { body: 'x' },
      contentCrc: 1,
      priority: 'normal',
      sendAt: now,
      expiresAt: now + 3_600_000,
      listCount: 10,
      ...overrides,
    };
  }

  beforeEach(async () => {
    dir = await makeTempDir('herald-rebalance-');
    store = await LevelTaskStore.open(dir.path);
    ring = new HashRing(['s1']);
    autoComplete = false;
    members = [];
    closers = [];
  });

  afterEach(async () => {
    for (const member of members) await member.scheduler.stop();
    for (const close of closers) close();
    await store.close();
    await dir.remove();
  });

  async function start(id: string, sweepMs = 3_600_000, mayAdopt?: () => boolean): Promise<Member> {
    const schedulerEndpoint = inprocEndpoint(`rebalance-${id}`);
    const dispatcherEndpoint = inprocEndpoint(`rebalance-${id}-dispatcher`);
    const inbox = await createPull({ name: id, endpoint: schedulerEndpoint, highWaterMark: 256 });
    const dispatcherInbox = await createPull({
      name: `${id}-dispatcher`,
      endpoint: dispatcherEndpoint,
      highWaterMark: 256,
    });
    const toScheduler = await createPush({ name: `to-${id}`, endpoints: [schedulerEndpoint], highWaterMark: 256 });
    const toDispatcher = await createPush({
      name: `${id}-to-dispatcher`,
      endpoints: [dispatcherEndpoint],
      highWaterMark: 256,
    });
    closers.push(
      () => toScheduler.close(),
      () => toDispatcher.close(),
      () => dispatcherInbox.close(),
    );
    const seen: Message[] = [];
    void (async () => {
      for await (const message of dispatcherInbox.messages()) {
        seen.push(message);
        if (message.kind === 'preprocess.request') {
          await toScheduler.send({
            kind: 'preprocess.result',
            ok: true,
            taskId: message.taskId,
            epoch: message.epoch,
            filteredListId: `f_${message.taskId}`,
            total: 10,
            kept: 10,
            removed: {},
            units: [{ start: 0, end: 10, executorId: 'e1' }],
          });
        } else if (message.kind === 'unit.run' && autoComplete) {
          await toScheduler.send({
            kind: 'unit.progress',
            taskId: message.taskId,
            epoch: message.epoch,
            unitNo: message.unitNo,
            from: message.from,
            to: message.end,
            delivered: 3,
            offline: message.end - message.from - 3,
            done: true,
          });
        }
      }
    })();
    const config = compileConfig({ scheduler: { id, slots: 100, tickMs: 20 } });
    const scheduler = await startScheduler({
      config,
      store,
      inbox,
      toDispatcher,
      ring: () => ring,
      sweepMs,
      ...(mayAdopt ? { mayAdopt } : {}),
    });
    const member = { id, scheduler, toScheduler, seen };
    members.push(member);
    return member;
  }

  const taskOf = async (id: number) => (await store.getTask(id))!;
  const unitOf = async (id: number) => (await store.listUnits(id))[0]!;
  const waitAll = (tasks: Task[], what: string, check: (task: Task) => Promise<boolean>) =>
    waitFor(async () => (await Promise.all(tasks.map(check))).every(Boolean), { timeoutMs: 10_000, message: what });

  /** Creates `n` tasks, submits them to `to` and waits until every one is SENDING with its unit started. */
  async function sending(to: Member, n: number): Promise<Task[]> {
    const tasks: Task[] = [];
    for (let i = 0; i < n; i++) tasks.push(await store.createTask(newTask(), Date.now()));
    for (const task of tasks) await to.toScheduler.send({ kind: 'task.submitted', taskId: task.id });
    await waitAll(tasks, `${n} tasks SENDING`, async (t) => (await taskOf(t.id)).state === 'SENDING');
    return tasks;
  }

  /** Reports the batch [from, to) of a task's only unit to a scheduler, as an executor would. */
  const progress = (to: Member, task: Task, epoch: number, from: number, end: number) =>
    to.toScheduler.send({
      kind: 'unit.progress',
      taskId: task.id,
      epoch,
      unitNo: 0,
      from,
      to: end,
      delivered: 1,
      offline: end - from - 1,
      done: end === 10,
    });

  it('moving the ring from [s1] to [s1, s2]: s2 adopts its share, s1 releases it, and sending tasks resume from their checkpoints', async () => {
    const s1 = await start('s1');
    const s2 = await start('s2');
    const tasks = await sending(s1, 40);
    for (const task of tasks) await progress(s1, task, 1, 0, 4);
    await waitAll(tasks, 'every unit checkpointed at 4', async (t) => (await unitOf(t.id)).checkpoint === 4);
    expect(s2.scheduler.stats().owned).toBe(0);

    ring = new HashRing(['s1', 's2']);
    const moved = tasks.filter((t) => ring.ownerOf(t.id) === 's2');
    const kept = tasks.filter((t) => ring.ownerOf(t.id) === 's1');
    expect(moved.length).toBeGreaterThanOrEqual(10); // about half of 40 on a two-member ring
    expect(kept.length).toBeGreaterThanOrEqual(10);

    expect(await s2.scheduler.rebalance()).toEqual({ adopted: moved.length, released: 0 });
    expect(await s1.scheduler.rebalance()).toEqual({ adopted: 0, released: moved.length });
    const s1SentAtRelease = s1.seen.length;
    expect(s1.scheduler.stats()).toMatchObject({ owned: kept.length, active: kept.length });
    expect(s2.scheduler.stats()).toMatchObject({ owned: moved.length, active: moved.length });

    // The new owner holds every moved task with a higher epoch and resumed it at its checkpoint:
    // one unit.run from 4 per task, no pre-processing again, no batch before the checkpoint.
    for (const task of moved) expect(await taskOf(task.id)).toMatchObject({ owner: 's2', epoch: 2, state: 'SENDING' });
    for (const task of kept) expect(await taskOf(task.id)).toMatchObject({ owner: 's1', epoch: 1 });
    expect(s2.seen.some((m) => m.kind === 'preprocess.request')).toBe(false);
    const runs = s2.seen.filter((m) => m.kind === 'unit.run');
    expect(runs.map((m) => m.taskId).sort((a, b) => a - b)).toEqual(moved.map((t) => t.id));
    for (const run of runs) expect(run).toMatchObject({ epoch: 2, from: 4, end: 10 });

    for (const task of moved) await progress(s2, task, 2, 4, 10);
    for (const task of kept) await progress(s1, task, 1, 4, 10);
    await waitAll(tasks, 'every task COMPLETED', async (t) => (await taskOf(t.id)).state === 'COMPLETED');
    for (const task of tasks) expect((await taskOf(task.id)).report).toMatchObject({ delivered: 2, offline: 8 });
    // s1 sent nothing more for what it released.
    const movedIds = new Set(moved.map((t) => t.id));
    expect(s1.seen.slice(s1SentAtRelease).filter((m) => 'taskId' in m && movedIds.has(m.taskId))).toEqual([]);
  });

  it('a stale owner: its writes for a task taken from it fail with FENCED, it drops the task and carries on', async () => {
    const s1 = await start('s1');
    const s2 = await start('s2');
    const tasks = await sending(s1, 12);
    ring = new HashRing(['s1', 's2']);
    const moved = tasks.filter((t) => ring.ownerOf(t.id) === 's2');
    const kept = tasks.filter((t) => ring.ownerOf(t.id) === 's1');
    expect(moved.length).toBeGreaterThanOrEqual(2);
    expect(kept.length).toBeGreaterThanOrEqual(1);

    // s2 follows the ring first; s1 has not heard of the change yet and still drives the moved tasks.
    expect(await s2.scheduler.rebalance()).toEqual({ adopted: moved.length, released: 0 });
    const [victim] = moved;
    await progress(s1, victim!, 1, 0, 10);
    await waitFor(() => s1.scheduler.stats().owned === tasks.length - 1, {
      timeoutMs: 10_000,
      message: 's1 drops the fenced task',
    });
    expect(await taskOf(victim!.id)).toMatchObject({ owner: 's2', epoch: 2, state: 'SENDING' });
    expect(await unitOf(victim!.id)).toMatchObject({ checkpoint: 0 });

    // The change reaches s1: it releases the rest, and a late report for a released task writes nothing.
    expect(await s1.scheduler.rebalance()).toEqual({ adopted: 0, released: moved.length - 1 });
    await progress(s1, moved[1]!, 1, 0, 10);
    // s1 is alive and well: its own tasks complete.
    for (const task of kept) await progress(s1, task, 1, 0, 10);
    await waitAll(kept, 's1 completes its own tasks', async (t) => (await taskOf(t.id)).state === 'COMPLETED');
    expect(await unitOf(moved[1]!.id)).toMatchObject({ checkpoint: 0 });
    expect(await taskOf(moved[1]!.id)).toMatchObject({ owner: 's2', state: 'SENDING' });

    for (const task of moved) await progress(s2, task, 2, 0, 10);
    await waitAll(moved, 's2 completes the moved tasks', async (t) => (await taskOf(t.id)).state === 'COMPLETED');
  });

  it('the sweep adopts a task whose task.submitted went to a scheduler that did not own it', async () => {
    ring = new HashRing(['s1', 's2']);
    autoComplete = true;
    const s1 = await start('s1');
    await start('s2', 100); // its sweep (100 ms) adopts the task
    let task = await store.createTask(newTask(), Date.now());
    while (ring.ownerOf(task.id) !== 's2') task = await store.createTask(newTask(), Date.now());
    await s1.toScheduler.send({ kind: 'task.submitted', taskId: task.id });
    await waitFor(async () => (await taskOf(task.id)).state === 'COMPLETED', {
      timeoutMs: 10_000,
      message: 'the sweep finds the task and s2 completes it',
    });
    expect(await taskOf(task.id)).toMatchObject({ owner: 's2', epoch: 1 });
    expect(s1.seen).toEqual([]);
  });

  it('a ring without members (not WORKING) adopts nothing and releases nothing', async () => {
    const s1 = await start('s1');
    const s2 = await start('s2');
    const tasks = await sending(s1, 5);
    const waiting = await store.createTask(newTask(), Date.now()); // live, owned by nobody

    ring = new HashRing([]);
    expect(await s1.scheduler.rebalance()).toEqual({ adopted: 0, released: 0 });
    expect(await s2.scheduler.rebalance()).toEqual({ adopted: 0, released: 0 });
    expect(s1.scheduler.stats().owned).toBe(tasks.length);
    expect(s2.scheduler.stats().owned).toBe(0);
    expect(await taskOf(waiting.id)).toMatchObject({ state: 'CREATED', epoch: 0 });

    // What s1 holds goes on under its epoch.
    for (const task of tasks) await progress(s1, task, 1, 0, 10);
    await waitAll(tasks, 's1 completes what it kept', async (t) => (await taskOf(t.id)).state === 'COMPLETED');
  });

  it('a scheduler cut off from the others (mayAdopt false) takes nothing back from the store, though its last ring names it', async () => {
    ring = new HashRing(['s1']);
    let current = true;
    const s1 = await start('s1', 3_600_000, () => current);
    const tasks = await sending(s1, 3);
    // Cut off: the others claimed its tasks meanwhile (epoch 2), and it has dropped them.
    current = false;
    for (const task of tasks) await store.claimTask(task.id, 's2', Date.now());
    for (const task of tasks) await progress(s1, task, 1, 0, 4); // its writes are fenced: it drops each task
    await waitFor(() => s1.scheduler.stats().owned === 0, { timeoutMs: 10_000, message: 's1 drops the tasks it lost' });
    expect(await s1.scheduler.rebalance()).toEqual({ adopted: 0, released: 0 });
    for (const task of tasks) expect(await taskOf(task.id)).toMatchObject({ owner: 's2', epoch: 2 });
    // Back in the membership: the ring is current again, and it adopts what the ring gives it.
    current = true;
    expect((await s1.scheduler.rebalance()).adopted).toBe(tasks.length);
  });
});
