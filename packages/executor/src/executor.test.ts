import { TypedArrayBitmap, type Counter, type Delivery, type DeliveryGateway, type Meter, type OfflineEntry, type OfflineStore, type Task, type TaskStore } from '@herald/core';
import { newTask, waitFor } from '@herald/testing';
import { createPull, createPush, inprocEndpoint, type Message, type PullChannel, type PushChannel, type UnitBatch, type UnitProgressMessage } from '@herald/transport';
import { startExecutor, type Executor } from './executor';
import { TaskCache } from './task-cache';

const TASK_ID = 5;
const EXPIRES_AT = 1_700_000_060_000;
const ONLINE = [2, 4, 6, 100];

class RecordingGateway implements DeliveryGateway {
  readonly deliveries: { taskId: number; uins: number[]; body: string; atLogin: boolean }[] = [];
  async deliver(delivery: Delivery): Promise<void> {
    this.deliveries.push({ taskId: delivery.taskId, uins: [...delivery.uins], body: delivery.content.body, atLogin: delivery.atLogin });
  }
  async close(): Promise<void> {}
}

/** Records appends; the next `failAppends` appends throw instead. */
class RecordingOfflineStore implements OfflineStore {
  readonly appends: { taskId: number; expiresAt: number; uins: number[] }[] = [];
  failAppends = 0;
  async append(taskId: number, expiresAt: number, sortedUins: Uint32Array): Promise<void> {
    if (this.failAppends > 0) {
      this.failAppends--;
      throw new Error('offline store unavailable');
    }
    this.appends.push({ taskId, expiresAt, uins: [...sortedUins] });
  }
  async pending(): Promise<OfflineEntry[]> {
    return [];
  }
  async acknowledge(): Promise<void> {}
  async *scanTask(): AsyncIterable<Uint32Array> {}
  async close(): Promise<void> {}
}

/** Counter totals by name and labels. */
class RecordingMeter implements Meter {
  readonly totals = new Map<string, number>();
  counter(name: string): Counter {
    return { inc: (labels, value = 1) => void this.totals.set(`${name}${JSON.stringify(labels ?? {})}`, this.total(name, labels) + value) };
  }
  gauge() {
    return { set() {} };
  }
  total(name: string, labels?: Record<string, string>): number {
    return this.totals.get(`${name}${JSON.stringify(labels ?? {})}`) ?? 0;
  }
}

interface Harness {
  executor: Executor;
  /** Stands in for a dispatcher: sends into the executor's inbox. */
  dispatcher: PushChannel;
  gateway: RecordingGateway;
  offline: RecordingOfflineStore;
  /** unit.progress messages, as the scheduler received them. */
  progress: UnitProgressMessage[];
  /** Users handed to the login queue, in order. */
  loggedIn: number[];
  meter: RecordingMeter;
  stop(): Promise<void>;
}

let harness: Harness;

async function start(): Promise<Harness> {
  const inbox = await createPull({ name: 'executor-1', endpoint: inprocEndpoint('executor-1'), highWaterMark: 100 });
  const dispatcher = await createPush({ name: 'dispatcher', endpoints: [inbox.endpoint], highWaterMark: 100 });
  const schedulerInbox: PullChannel = await createPull({ name: 'scheduler', endpoint: inprocEndpoint('scheduler'), highWaterMark: 100 });
  const toScheduler = await createPush({ name: 'executor-1-to-scheduler', endpoints: [schedulerInbox.endpoint], highWaterMark: 100 });

  const progress: UnitProgressMessage[] = [];
  const received = (async () => {
    for await (const message of schedulerInbox.messages()) if (message.kind === 'unit.progress') progress.push(message);
  })();

  const online = new TypedArrayBitmap(1024);
  for (const uin of ONLINE) online.setOnline(uin, true);
  // Claimed at epoch 2 (the batches' epoch), as the store would show it.
  const task = { ...newTask({ content: { body: 'flash sale' }, expiresAt: EXPIRES_AT }), id: TASK_ID, epoch: 2 } as unknown as Task;
  const store = { getTask: async (id: number) => (id === TASK_ID ? task : undefined) } as unknown as TaskStore;
  const gateway = new RecordingGateway();
  const offline = new RecordingOfflineStore();
  const loggedIn: number[] = [];
  const logins = { enqueue: (uins: Uint32Array) => loggedIn.push(...uins), idle: async () => undefined, pending: 0 };
  const meter = new RecordingMeter();
  const executor = startExecutor({ id: 'executor-1', inbox, toScheduler, tasks: new TaskCache(store), online, gateway, offline, logins, meter });

  return {
    executor,
    dispatcher,
    gateway,
    offline,
    progress,
    loggedIn,
    meter,
    async stop() {
      dispatcher.close();
      inbox.close(); // ends the executor's loop
      await executor.done;
      toScheduler.close();
      schedulerInbox.close();
      await received;
    },
  };
}

beforeEach(async () => {
  harness = await start();
});
afterEach(async () => {
  await harness.stop();
});

function batch(offset: number, uins: number[], last = false, overrides: Partial<UnitBatch> = {}): UnitBatch {
  return { kind: 'unit.batch', taskId: TASK_ID, epoch: 2, unitNo: 0, offset, last, uins: Uint32Array.from(uins), ...overrides };
}

function progress(from: number, to: number, delivered: number, offline: number, done = false, unitNo = 0, epoch = 2): UnitProgressMessage {
  return { kind: 'unit.progress', taskId: TASK_ID, epoch, unitNo, from, to, delivered, offline, done };
}

const staleBatches = () => harness.meter.total('herald_executor_stale_batches_total', { executor: 'executor-1' });

/** Every recipient written, delivered or queued offline, with repeats. */
const written = () => [...harness.gateway.deliveries.flatMap((d) => d.uins), ...harness.offline.appends.flatMap((a) => a.uins)].sort((a, b) => a - b);

async function send(...messages: Message[]): Promise<void> {
  for (const message of messages) await harness.dispatcher.send(message);
}

/** Waits until `count` progress messages arrived. */
async function progressCount(count: number): Promise<void> {
  await waitFor(() => harness.progress.length >= count, { message: `${count} unit.progress messages` });
}

describe('executor', () => {
  it('delivers the online part, queues the offline part, then reports the batch', async () => {
    await send(batch(0, [1, 2, 3, 4]), batch(4, [5, 6, 7, 100], true));
    await progressCount(2);

    expect(harness.progress).toEqual([progress(0, 4, 2, 2), progress(4, 8, 2, 2, true)]);
    expect(harness.gateway.deliveries).toEqual([
      { taskId: TASK_ID, uins: [2, 4], body: 'flash sale', atLogin: false },
      { taskId: TASK_ID, uins: [6, 100], body: 'flash sale', atLogin: false },
    ]);
    expect(harness.offline.appends).toEqual([
      { taskId: TASK_ID, expiresAt: EXPIRES_AT, uins: [1, 3] },
      { taskId: TASK_ID, expiresAt: EXPIRES_AT, uins: [5, 7] },
    ]);
  });

  it('skips the gateway for an all-offline batch and the offline store for an all-online one', async () => {
    await send(batch(0, [1, 3, 5]), batch(3, [2, 4, 6], true));
    await progressCount(2);
    expect(harness.progress).toEqual([progress(0, 3, 0, 3), progress(3, 6, 3, 0, true)]);
    expect(harness.gateway.deliveries.map((d) => d.uins)).toEqual([[2, 4, 6]]);
    expect(harness.offline.appends.map((a) => a.uins)).toEqual([[1, 3, 5]]);
  });

  it('keeps the units of a task apart', async () => {
    await send(batch(0, [1, 2], false, { unitNo: 0 }), batch(0, [2, 3], true, { unitNo: 1 }), batch(2, [4], true, { unitNo: 0 }));
    await progressCount(3);
    expect(harness.progress).toEqual([progress(0, 2, 1, 1, false, 0), progress(0, 2, 1, 1, true, 1), progress(2, 3, 1, 0, true, 0)]);
  });

  it('drops a batch for an unknown task: no delivery, no progress', async () => {
    await send(batch(0, [1, 2, 3], false, { taskId: 404 }), batch(0, [2, 3], true));
    await progressCount(1);
    // Progress arrives in order, so had the first batch been reported it would be here already.
    expect(harness.progress).toEqual([progress(0, 2, 1, 1, true)]);
    expect(harness.gateway.deliveries.map((d) => d.taskId)).toEqual([TASK_ID]);
    expect(harness.offline.appends.map((a) => a.taskId)).toEqual([TASK_ID]);
  });

  it('ignores messages that are not batches', async () => {
    await send({ kind: 'task.halt', taskId: TASK_ID, epoch: 2 }, batch(0, [1], true));
    await progressCount(1);
    expect(harness.progress).toEqual([progress(0, 1, 0, 1, true)]);
  });

  it('hands user.logins to the login queue without holding up batches', async () => {
    await send({ kind: 'user.logins', uins: Uint32Array.of(9, 3) }, batch(0, [1], true), { kind: 'user.logins', uins: Uint32Array.of(4) });
    await waitFor(() => harness.loggedIn.length === 3, { message: 'three users handed to the login queue' });
    expect(harness.loggedIn).toEqual([9, 3, 4]);
    await progressCount(1);
  });

  it('does not deliver a batch it already confirmed again', async () => {
    await send(batch(0, [1, 2]), batch(2, [3, 4]));
    await progressCount(2);
    await send(batch(0, [1, 2]), batch(4, [5, 6], true));
    await progressCount(4);

    expect(harness.gateway.deliveries.map((d) => d.uins)).toEqual([[2], [4], [6]]);
    expect(harness.offline.appends.map((a) => a.uins)).toEqual([[1], [3], [5]]);
    // The repeat is confirmed again (same counts) without a second delivery; the scheduler
    // ignores it when its checkpoint is already past it.
    expect(harness.progress).toEqual([progress(0, 2, 1, 1), progress(2, 4, 1, 1), progress(0, 2, 1, 1), progress(4, 6, 1, 1, true)]);
  });

  it('lets a unit re-run from an older checkpoint catch up without delivering twice', async () => {
    // The scheduler lost the first two reports (e.g. they were in its inbox when it restarted),
    // so its checkpoint is still 0 and it re-runs the unit from there.
    await send(batch(0, [1, 2]), batch(2, [3, 4]));
    await progressCount(2);
    await send(batch(0, [1, 2]), batch(2, [3, 4]), batch(4, [5, 6], true));
    await progressCount(5);

    // The scheduler's idempotent checkpoint: a progress counts only when `from` is the stored checkpoint.
    let checkpoint = 0;
    let delivered = 0;
    let offline = 0;
    for (const p of harness.progress.slice(2)) {
      if (p.from !== checkpoint) continue;
      checkpoint = p.to;
      delivered += p.delivered;
      offline += p.offline;
    }
    expect({ checkpoint, delivered, offline }).toEqual({ checkpoint: 6, delivered: 3, offline: 3 });
    expect(harness.gateway.deliveries.map((d) => d.uins)).toEqual([[2], [4], [6]]);
  });

  it('does not report a batch whose offline append failed, and keeps processing later batches', async () => {
    harness.offline.failAppends = 1;
    await send(batch(0, [1, 2]), batch(2, [3, 4]));
    await progressCount(1);
    expect(harness.progress).toEqual([progress(2, 4, 1, 1)]);
    expect(harness.offline.appends.map((a) => a.uins)).toEqual([[3]]);

    // The scheduler's checkpoint stayed at 0, so the batch comes again: it must be written this
    // time, not skipped as if the later batch had covered it.
    await send(batch(0, [1, 2]), batch(2, [3, 4]), batch(4, [5], true));
    await progressCount(4);
    expect(harness.offline.appends.map((a) => a.uins)).toEqual([[3], [1], [5]]);
    expect(harness.progress.slice(1)).toEqual([progress(0, 2, 1, 1), progress(2, 4, 1, 1), progress(4, 5, 0, 1, true)]);
  });

  describe('epoch fencing', () => {
    it('drops a batch of an older epoch after a newer one: not delivered, not reported, counted', async () => {
      await send(batch(0, [1, 2], false, { epoch: 3 }), batch(2, [3, 4], false, { epoch: 2 }), batch(2, [5, 6], true, { epoch: 3 }));
      await progressCount(2);
      expect(harness.progress).toEqual([progress(0, 2, 1, 1, false, 0, 3), progress(2, 4, 1, 1, true, 0, 3)]);
      expect(written()).toEqual([1, 2, 5, 6]);
      expect(staleBatches()).toBe(1);
    });

    it("refuses a batch below the task's stored epoch even as the first batch it sees of the task", async () => {
      await send(batch(0, [1, 2], false, { epoch: 1 }), batch(0, [1, 2], true));
      await progressCount(1);
      expect(harness.progress).toEqual([progress(0, 2, 1, 1, true)]);
      expect(written()).toEqual([1, 2]);
      expect(staleBatches()).toBe(1);
    });

    it('a new owner takes over units mid-way: no recipient written twice, the old stream dropped from the first newer batch on', async () => {
      const old = (offset: number, uins: number[], unitNo: number) => batch(offset, uins, false, { epoch: 2, unitNo });
      const next = (offset: number, uins: number[], unitNo: number, last = false) => batch(offset, uins, last, { epoch: 3, unitNo });
      // The old owner (epoch 2) streams both units; unit 1's batch [2, 4) was in flight when the new owner took over.
      await send(old(0, [1, 2], 0), old(2, [3, 4], 0), old(0, [11, 12], 1), old(2, [13, 14], 1));
      await progressCount(4);
      // The new owner (epoch 3) resumes both units from checkpoint 2 (the old owner's later reports were lost);
      // the old stream of unit 0 goes on somewhere and its batches arrive in between.
      await send(next(2, [3, 4], 0), old(4, [5, 6], 0), next(4, [5, 6], 0, true), next(2, [13, 14], 1), old(4, [15], 1), next(4, [15], 1, true));
      await progressCount(8);

      expect(harness.progress.slice(4)).toEqual([
        progress(2, 4, 1, 1, false, 0, 3), // confirmed under epoch 2: reported again, not written again
        progress(4, 6, 1, 1, true, 0, 3),
        progress(2, 4, 0, 2, false, 1, 3),
        progress(4, 5, 0, 1, true, 1, 3),
      ]);
      expect(written()).toEqual([1, 2, 3, 4, 5, 6, 11, 12, 13, 14, 15]);
      expect(staleBatches()).toBe(2);
    });
  });
});
