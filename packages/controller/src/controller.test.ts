import { TOPICS, type ConsumedEvent } from '@herald/core/ports';
import type { NewTask } from '@herald/core/task';
import { createLocalCoordinatorCluster } from '@herald/coordinator-local';
import { LevelEventLog } from '@herald/events-level';
import { LevelTaskStore } from '@herald/store-level';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import { startController, type Controller } from './controller';
import { syncCheckpoints } from './checkpoint-sync';
import { relayOutbox } from './outbox-relay';

/** The controller against the embedded adapters of every port it uses. */
describe('controller', () => {
  let dir: TempDir;
  let store: LevelTaskStore;
  let bus: LevelEventLog;
  const now = 1_800_000_000_000;
  const task: NewTask = {
    accountId: 'acme',
    listId: 'l_1',
    content: { body: 'x' },
    contentCrc: 1,
    priority: 'normal',
    sendAt: now,
    expiresAt: now + 1e6,
    listCount: 10,
  };

  beforeEach(async () => {
    dir = await makeTempDir('herald-controller-');
    store = await LevelTaskStore.open(`${dir.path}/tasks`);
    bus = await LevelEventLog.open(`${dir.path}/events`);
  });

  afterEach(async () => {
    await bus.close();
    await store.close();
    await dir.remove();
  });

  /** Reads the task-events topic from the start until `count` events arrived. */
  async function taskEvents(count: number): Promise<ConsumedEvent[]> {
    const seen: ConsumedEvent[] = [];
    const sub = await bus.subscribe(TOPICS.taskEvents, `reader-${count}`, async (events) => void seen.push(...events), {
      fromBeginning: true,
    });
    await waitFor(() => seen.length >= count, { timeoutMs: 5000, message: `${seen.length} of ${count} task events` });
    await sub.close();
    return seen;
  }

  it('relays the outbox in order, marks what it relayed, and relays nothing twice', async () => {
    const created = await store.createTask(task, now);
    const owner = await store.claimTask(created.id, 's1', now);
    await store.transitionTask(created.id, { epoch: owner.epoch }, 'enqueue', {}, now + 1);
    expect(await relayOutbox(store, bus, 500)).toBe(2);
    expect(await relayOutbox(store, bus, 500)).toBe(0);
    const seen: ConsumedEvent[] = [];
    const sub = await bus.subscribe(TOPICS.taskEvents, 'g', async (events) => void seen.push(...events), {
      fromBeginning: true,
    });
    await waitFor(() => seen.length === 2, { timeoutMs: 5000, message: 'events not relayed' });
    await sub.close();
    expect(
      seen.map((e) => [e.key, (e.value as { from: string | null; to: string }).from, (e.value as { to: string }).to]),
    ).toEqual([
      [String(created.id), null, 'CREATED'],
      [String(created.id), 'CREATED', 'QUEUED'],
    ]);
    expect(await store.readOutbox(0, 10)).toEqual([]);
  });

  it('keeps events unrelayed when publishing fails, and relays them on the next pass', async () => {
    await store.createTask(task, now);
    const failing = {
      ...bus,
      publish: async () => Promise.reject(new Error('broker down')),
    } as unknown as LevelEventLog;
    await expect(relayOutbox(store, failing, 500)).rejects.toThrow('broker down');
    expect(await store.readOutbox(0, 10)).toHaveLength(1);
    expect(await relayOutbox(store, bus, 500)).toBe(1);
  });

  it('moves newer checkpoints into the store, and drops the ones a newer owner fenced out', async () => {
    const coordinator = await createLocalCoordinatorCluster().connect();
    const created = await store.createTask(task, now);
    const owner = await store.claimTask(created.id, 's1', now);
    const fence = { epoch: owner.epoch };
    await store.putUnits(
      created.id,
      fence,
      [
        { unitNo: 0, start: 0, end: 10, executorId: 'e1' },
        { unitNo: 1, start: 10, end: 20, executorId: 'e1' },
      ],
      now,
    );
    await coordinator.putCheckpoint({
      taskId: created.id,
      unitNo: 0,
      epoch: owner.epoch,
      checkpoint: 6,
      delivered: 2,
      offline: 4,
      at: now,
    });
    expect(await syncCheckpoints(coordinator, store, now, console as never)).toEqual({ applied: 1, stale: 0 });
    expect((await store.listUnits(created.id))[0]).toMatchObject({ checkpoint: 6, delivered: 2, offline: 4 });
    expect(await coordinator.listCheckpoints()).toEqual([]);

    // A newer owner claims the task: the old owner's checkpoint is fenced out and dropped.
    await coordinator.putCheckpoint({
      taskId: created.id,
      unitNo: 1,
      epoch: owner.epoch,
      checkpoint: 15,
      delivered: 5,
      offline: 0,
      at: now,
    });
    await store.claimTask(created.id, 's2', now);
    expect(await syncCheckpoints(coordinator, store, now, console as never)).toEqual({ applied: 0, stale: 1 });
    expect((await store.listUnits(created.id))[1]).toMatchObject({ checkpoint: 10 });
    expect(await coordinator.listCheckpoints()).toEqual([]);
  });

  it('moves checkpoints every checkpointSyncMs, not every pass, and at once when asked for a pass', async () => {
    const coordinator = await createLocalCoordinatorCluster().connect();
    const created = await store.createTask(task, now);
    const owner = await store.claimTask(created.id, 's1', now);
    await store.putUnits(created.id, { epoch: owner.epoch }, [{ unitNo: 0, start: 0, end: 10, executorId: 'e1' }], now);
    const checkpoint = (to: number) =>
      coordinator.putCheckpoint({
        taskId: created.id,
        unitNo: 0,
        epoch: owner.epoch,
        checkpoint: to,
        delivered: to,
        offline: 0,
        at: now,
      });
    const stored = async () => (await store.listUnits(created.id))[0]!.checkpoint;
    await checkpoint(3);
    const controller = await startController(
      { id: 'c', intervalMs: 5, checkpointSyncMs: 3_600_000 },
      { coordinator, store, bus },
    );
    try {
      // The first pass moves it; the passes after it relay the outbox but leave the next checkpoint where it is.
      await waitFor(async () => (await stored()) === 3, { timeoutMs: 5000, message: 'first checkpoint not moved' });
      await checkpoint(7);
      await taskEvents(1); // passes go on: the task's CREATED event is relayed by one of them
      await store.transitionTask(created.id, { epoch: owner.epoch }, 'enqueue', {}, now + 1);
      await taskEvents(2); // and by a pass that began after the checkpoint was put
      expect(await stored()).toBe(3);
      // An explicit pass (a drain, a test) moves it whatever the period.
      await controller.runOnce();
      expect(await stored()).toBe(7);
    } finally {
      await controller.stop();
    }
  });

  it('runs one pass at a time while the bus is slow to fail, and starts none once stopping', async () => {
    // A broker outage as the relay sees it: every publish fails, but only after kafkajs's retries (here 50 ms).
    let attempts = 0;
    let inFlight = 0;
    let overlapped = false;
    const slow = {
      publish: async () => {
        attempts++;
        overlapped ||= inFlight > 0;
        inFlight++;
        await new Promise((resolve) => setTimeout(resolve, 50));
        inFlight--;
        throw new Error('broker down');
      },
    } as unknown as LevelEventLog;
    const controller = await startController(
      { id: 'c', intervalMs: 5 },
      { coordinator: await createLocalCoordinatorCluster().connect(), store, bus: slow },
    );
    await store.createTask(task, now);
    await waitFor(() => attempts >= 4, { timeoutMs: 5000, message: 'failed relay attempts' });
    const atStop = attempts;
    await controller.stop();
    // Ticks that came while a pass was failing were not queued behind it, so stop waits for at most the pass under way.
    expect(attempts - atStop).toBeLessThanOrEqual(1);
    expect(overlapped).toBe(false);
    expect(await store.readOutbox(0, 10)).toHaveLength(1);
  });

  it('leads alone among candidates, relays while leading, and hands over when it stops', async () => {
    const cluster = createLocalCoordinatorCluster();
    const controllers: Controller[] = [];
    for (const id of ['c1', 'c2'])
      controllers.push(
        await startController({ id, intervalMs: 20 }, { coordinator: await cluster.connect(), store, bus }),
      );
    expect(controllers.map((c) => c.isLeader())).toEqual([true, false]);
    await store.createTask(task, now);
    await waitFor(async () => (await store.readOutbox(0, 10)).length === 0, {
      timeoutMs: 5000,
      message: 'leader did not relay',
    });
    await controllers[0]!.stop();
    await waitFor(() => controllers[1]!.isLeader(), { timeoutMs: 5000, message: 'no hand-over' });
    await store.createTask(task, now);
    await waitFor(async () => (await store.readOutbox(0, 10)).length === 0, {
      timeoutMs: 5000,
      message: 'new leader did not relay',
    });
    expect((await taskEvents(2)).map((e) => (e.value as { to: string }).to)).toEqual(['CREATED', 'CREATED']);
    await controllers[1]!.stop();
  });
});
