import { ErrorCodes, HeraldError } from '@herald/core';
import { TypedArrayBitmap } from '@herald/core/presence';
import type {
  ConfirmedBatchLog,
  Counter,
  Delivery,
  DeliveryGateway,
  Meter,
  OfflineAppendOptions,
  OfflineEntry,
  OfflinePurge,
  OfflineStore,
  TaskStore,
  UserAttributeLookup,
} from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { newTask, waitFor, WaitForTimeoutError } from '@herald/testing';
import {
  createPull,
  createPush,
  inprocEndpoint,
  type Message,
  type PullChannel,
  type PushChannel,
  type UnitBatch,
  type UnitProgressMessage,
} from '@herald/transport';
import { startExecutor, type Executor } from './executor';
import { MemoryConfirmedBatchLog } from './memory-confirmed-batch-log';
import { Personaliser } from './personalise';
import { TaskCache } from './task-cache';

const TASK_ID = 5;
/** A real-time task, as the store shows it. */
const REALTIME_TASK_ID = 6;
/** A personalised task: its body is a template. */
const TEMPLATE_TASK_ID = 8;
const EXPIRES_AT = 1_700_000_060_000;
const ONLINE = [2, 4, 6, 100];

/** Records deliveries as they begin; while `hold()` is in force every delivery waits for `release()`, holding the worker. */
class RecordingGateway implements DeliveryGateway {
  readonly deliveries: { taskId: number; uins: number[]; body: string; atLogin: boolean; contents?: string[] }[] = [];
  private gate: Promise<void> | undefined;
  private open: (() => void) | undefined;
  async deliver(delivery: Delivery): Promise<void> {
    const contents = delivery.contents === undefined ? {} : { contents: delivery.contents.map((c) => c.body) };
    this.deliveries.push({
      taskId: delivery.taskId,
      uins: [...delivery.uins],
      body: delivery.content.body,
      atLogin: delivery.atLogin,
      ...contents,
    });
    await this.gate;
  }
  hold(): void {
    this.gate = new Promise((resolve) => (this.open = resolve));
  }
  release(): void {
    this.gate = undefined;
    this.open?.();
  }
  async close(): Promise<void> {}
}

/** The inbox as the executor sees it, counting the messages that left it (pulled out of ZeroMQ). */
function counting(inbox: PullChannel): { inbox: PullChannel; left: () => number } {
  let left = 0;
  const counted: PullChannel = {
    async *messages() {
      for await (const message of inbox.messages()) {
        left++;
        yield message;
      }
    },
    endpoint: inbox.endpoint,
    get malformed() {
      return inbox.malformed;
    },
    close: () => inbox.close(),
  };
  return { inbox: counted, left: () => left };
}

/** Records appends; the next `failAppends` appends throw instead. */
class RecordingOfflineStore implements OfflineStore {
  readonly appends: { taskId: number; expiresAt: number; uins: number[]; group?: number }[] = [];
  failAppends = 0;
  async append(
    taskId: number,
    expiresAt: number,
    sortedUins: Uint32Array,
    options: OfflineAppendOptions = {},
  ): Promise<void> {
    if (this.failAppends > 0) {
      this.failAppends--;
      throw new Error('offline store unavailable');
    }
    const { group } = options;
    this.appends.push({ taskId, expiresAt, uins: [...sortedUins], ...(group === undefined ? {} : { group }) });
  }
  async pending(): Promise<OfflineEntry[]> {
    return [];
  }
  async acknowledge(): Promise<void> {}
  async *scanTask(): AsyncIterable<Uint32Array> {}
  async purgeExpired(): Promise<OfflinePurge> {
    return { entries: 0, records: 0, done: true };
  }
  async close(): Promise<void> {}
}

/** Counter totals by name and labels. */
class RecordingMeter implements Meter {
  readonly totals = new Map<string, number>();
  counter(name: string): Counter {
    return {
      inc: (labels, value = 1) =>
        void this.totals.set(`${name}${JSON.stringify(labels ?? {})}`, this.total(name, labels) + value),
    };
  }
  gauge() {
    return { set() {} };
  }
  histogram() {
    return { observe() {} };
  }
  total(name: string, labels?: Record<string, string>): number {
    return this.totals.get(`${name}${JSON.stringify(labels ?? {})}`) ?? 0;
  }
}

interface Harness {
  executor: Executor;
  /** Stands in for a dispatcher: sends into the executor's inbox. */
  dispatcher: PushChannel;
  /** Messages that left the executor's inbox so far. */
  left(): number;
  /** Sends into the executor's real-time inbox (started with `realtimeInbox`). */
  realtimeDispatcher?: PushChannel;
  gateway: RecordingGateway;
  offline: RecordingOfflineStore;
  /** unit.progress messages, as the scheduler received them. */
  progress: UnitProgressMessage[];
  /** Users handed to the login queue, in order. */
  loggedIn: number[];
  meter: RecordingMeter;
  /** Messages that left the real-time inbox so far. */
  realtimeLeft(): number;
  /** Stops the executor as a process stop does: the dispatchers and inboxes close, the gateway lets go, `done` resolves. */
  stopExecutor(): Promise<void>;
  /** stopExecutor, then the scheduler's side. */
  stop(): Promise<void>;
}

let harness: Harness;

interface StartOptions {
  /** Messages the executor's reader may hold ahead of its worker. */
  prefetch?: number;
  /** Give the executor a real-time inbox too. */
  realtimeInbox?: boolean;
  /** How the executor's store answers getTask (default: the two tasks). */
  getTask?: (id: number, tasks: Map<number, Task>) => Promise<Task | undefined>;
  /** Renders template tasks (default: the executor's own, without an attribute store). */
  personaliser?: Personaliser;
  /** The batches confirmed (default: the executor's own memory log). */
  confirmed?: ConfirmedBatchLog;
}

async function start(options: StartOptions = {}): Promise<Harness> {
  const pulled = await createPull({ name: 'executor-1', endpoint: inprocEndpoint('executor-1'), highWaterMark: 100 });
  const { inbox, left } = counting(pulled);
  const dispatcher = await createPush({ name: 'dispatcher', endpoints: [pulled.endpoint], highWaterMark: 100 });
  const realtimePulled = options.realtimeInbox
    ? await createPull({
        name: 'executor-1-realtime',
        endpoint: inprocEndpoint('executor-1-realtime'),
        highWaterMark: 100,
      })
    : undefined;
  const realtime = realtimePulled && counting(realtimePulled);
  const realtimeDispatcher =
    realtimePulled &&
    (await createPush({ name: 'dispatcher-realtime', endpoints: [realtimePulled.endpoint], highWaterMark: 100 }));
  const schedulerInbox: PullChannel = await createPull({
    name: 'scheduler',
    endpoint: inprocEndpoint('scheduler'),
    highWaterMark: 100,
  });
  const toScheduler = await createPush({
    name: 'executor-1-to-scheduler',
    endpoints: [schedulerInbox.endpoint],
    highWaterMark: 100,
  });

  const progress: UnitProgressMessage[] = [];
  const received = (async () => {
    for await (const message of schedulerInbox.messages()) if (message.kind === 'unit.progress') progress.push(message);
  })();

  const online = new TypedArrayBitmap(1024);
  for (const uin of ONLINE) online.setOnline(uin, true);
  // Claimed at epoch 2 (the batches' epoch), as the store would show it.
  const task = {
    ...newTask({ content: { body: 'flash sale' }, expiresAt: EXPIRES_AT }),
    id: TASK_ID,
    epoch: 2,
  } as unknown as Task;
  const urgent = {
    ...newTask({ content: { body: 'breaking news' }, expiresAt: EXPIRES_AT, priority: 'realtime' }),
    id: REALTIME_TASK_ID,
    epoch: 2,
  } as unknown as Task;
  const personal = {
    ...newTask({ content: { body: 'Hi {{region|default:"there"}}', template: true }, expiresAt: EXPIRES_AT }),
    id: TEMPLATE_TASK_ID,
    epoch: 2,
  } as unknown as Task;
  const tasks = new Map([task, urgent, personal].map((t) => [t.id, t]));
  const getTask = options.getTask ?? (async (id: number) => tasks.get(id));
  const store = { getTask: (id: number) => getTask(id, tasks) } as unknown as TaskStore;
  const gateway = new RecordingGateway();
  const offline = new RecordingOfflineStore();
  const loggedIn: number[] = [];
  const logins = { enqueue: (uins: Uint32Array) => loggedIn.push(...uins), idle: async () => undefined, pending: 0 };
  const meter = new RecordingMeter();
  const executor = startExecutor({
    id: 'executor-1',
    inbox,
    realtimeInbox: realtime?.inbox,
    prefetch: options.prefetch,
    toScheduler,
    tasks: new TaskCache(store),
    online,
    gateway,
    offline,
    logins,
    meter,
    ...(options.personaliser ? { personaliser: options.personaliser } : {}),
    ...(options.confirmed ? { confirmed: options.confirmed } : {}),
  });

  let stopped: Promise<void> | undefined;
  const stopExecutor = () =>
    (stopped ??= (async () => {
      dispatcher.close();
      realtimeDispatcher?.close();
      realtime?.inbox.close();
      inbox.close(); // stops the executor
      gateway.release();
      await executor.done;
    })());

  return {
    executor,
    dispatcher,
    left,
    realtimeDispatcher,
    gateway,
    offline,
    progress,
    loggedIn,
    meter,
    realtimeLeft: () => realtime?.left() ?? 0,
    stopExecutor,
    async stop() {
      await stopExecutor();
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
  return {
    kind: 'unit.batch',
    taskId: TASK_ID,
    epoch: 2,
    unitNo: 0,
    offset,
    last,
    uins: Uint32Array.from(uins),
    ...overrides,
  };
}

function progress(
  from: number,
  to: number,
  delivered: number,
  offline: number,
  done = false,
  unitNo = 0,
  epoch = 2,
): UnitProgressMessage {
  return { kind: 'unit.progress', taskId: TASK_ID, epoch, unitNo, from, to, delivered, offline, done };
}

/** A batch of the real-time task. */
const urgent = (offset: number, uins: number[], last = false, overrides: Partial<UnitBatch> = {}) =>
  batch(offset, uins, last, { taskId: REALTIME_TASK_ID, ...overrides });

/** Each delivery as [task, unit's first uin], in the order the worker began them. */
const deliveryOrder = () => harness.gateway.deliveries.map((d) => [d.taskId, d.uins[0]]);

/** Progress as [task, unit, from], in the order it arrived. */
const progressOrder = () => harness.progress.map((p) => [p.taskId, p.unitNo, p.from]);

const staleBatches = () => harness.meter.total('herald_executor_stale_batches_total', { executor: 'executor-1' });

/** Every recipient written, delivered or queued offline, with repeats. */
const written = () =>
  [...harness.gateway.deliveries.flatMap((d) => d.uins), ...harness.offline.appends.flatMap((a) => a.uins)].sort(
    (a, b) => a - b,
  );

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

  it("appends a local-time task's offline users with the group their batch's positions fall in", async () => {
    await harness.stop();
    const group = (start: number, end: number) => ({
      offsetMinutes: 60,
      releaseAt: 0,
      start,
      end,
      skipped: false,
      released: true,
      delivered: 0,
      offline: 0,
    });
    harness = await start({
      getTask: async (id, tasks) => {
        const task = tasks.get(id)!;
        return id !== TASK_ID ? task : { ...task, report: { ...task.report, localGroups: [group(0, 4), group(4, 8)] } };
      },
    });
    await send(batch(0, [1, 2, 3, 4]), batch(4, [5, 6, 7, 100], true));
    await progressCount(2);
    expect(harness.offline.appends).toEqual([
      { taskId: TASK_ID, expiresAt: EXPIRES_AT, uins: [1, 3], group: 0 },
      { taskId: TASK_ID, expiresAt: EXPIRES_AT, uins: [5, 7], group: 1 },
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
    await send(
      batch(0, [1, 2], false, { unitNo: 0 }),
      batch(0, [2, 3], true, { unitNo: 1 }),
      batch(2, [4], true, { unitNo: 0 }),
    );
    await progressCount(3);
    expect(harness.progress).toEqual([
      progress(0, 2, 1, 1, false, 0),
      progress(0, 2, 1, 1, true, 1),
      progress(2, 3, 1, 0, true, 0),
    ]);
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
    await send({ kind: 'user.logins', uins: Uint32Array.of(9, 3) }, batch(0, [1], true), {
      kind: 'user.logins',
      uins: Uint32Array.of(4),
    });
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
    expect(harness.progress).toEqual([
      progress(0, 2, 1, 1),
      progress(2, 4, 1, 1),
      progress(0, 2, 1, 1),
      progress(4, 6, 1, 1, true),
    ]);
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

  it('does not deliver again, after a restart, what its log says it confirmed before: the scheduler lost those reports', async () => {
    await harness.stop();
    const log = new MemoryConfirmedBatchLog(); // stands in for the host's durable log (LevelConfirmedBatchLog)
    harness = await start({ confirmed: log });
    await send(batch(0, [1, 2]), batch(2, [3, 4]));
    await progressCount(2);
    await harness.stop();

    // A new process on the same host; the unit runs again from the scheduler's stale checkpoint 0.
    harness = await start({ confirmed: log });
    await send(batch(0, [1, 2]), batch(2, [3, 4]), batch(4, [5, 6], true));
    await progressCount(3);
    expect(harness.gateway.deliveries.map((d) => d.uins)).toEqual([[6]]);
    expect(harness.offline.appends.map((a) => a.uins)).toEqual([[5]]);
    expect(harness.progress).toEqual([progress(0, 2, 1, 1), progress(2, 4, 1, 1), progress(4, 6, 1, 1, true)]);
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
      await send(
        batch(0, [1, 2], false, { epoch: 3 }),
        batch(2, [3, 4], false, { epoch: 2 }),
        batch(2, [5, 6], true, { epoch: 3 }),
      );
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
      const next = (offset: number, uins: number[], unitNo: number, last = false) =>
        batch(offset, uins, last, { epoch: 3, unitNo });
      // The old owner (epoch 2) streams both units; unit 1's batch [2, 4) was in flight when the new owner took over.
      await send(old(0, [1, 2], 0), old(2, [3, 4], 0), old(0, [11, 12], 1), old(2, [13, 14], 1));
      await progressCount(4);
      // The new owner (epoch 3) resumes both units from checkpoint 2 (the old owner's later reports were lost);
      // the old stream of unit 0 goes on somewhere and its batches arrive in between.
      await send(
        next(2, [3, 4], 0),
        old(4, [5, 6], 0),
        next(4, [5, 6], 0, true),
        next(2, [13, 14], 1),
        old(4, [15], 1),
        next(4, [15], 1, true),
      );
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

  describe('real-time lane', () => {
    it('handles real-time batches queued behind normal ones first, each unit in order', async () => {
      await harness.stop();
      harness = await start({ prefetch: 8 });
      harness.gateway.hold(); // the worker stays on the first batch while the rest queue up
      await send(
        batch(0, [2]),
        batch(1, [4]),
        batch(0, [6], false, { unitNo: 1 }),
        urgent(0, [100]),
        batch(2, [100], true),
        urgent(0, [4], true, { unitNo: 1 }),
        urgent(1, [2], true),
        batch(1, [2], true, { unitNo: 1 }),
      );
      await waitFor(() => harness.left() === 8 && harness.gateway.deliveries.length === 1, {
        message: 'every message pulled, the first one in hand',
      });
      harness.gateway.release();
      await progressCount(8);

      expect(progressOrder()).toEqual([
        [TASK_ID, 0, 0], // in hand when the real-time batches came
        [REALTIME_TASK_ID, 0, 0],
        [REALTIME_TASK_ID, 1, 0],
        [REALTIME_TASK_ID, 0, 1],
        [TASK_ID, 0, 1],
        [TASK_ID, 1, 0],
        [TASK_ID, 0, 2],
        [TASK_ID, 1, 1],
      ]);
      expect(deliveryOrder()).toEqual([
        [TASK_ID, 2],
        [REALTIME_TASK_ID, 100],
        [REALTIME_TASK_ID, 4],
        [REALTIME_TASK_ID, 2],
        [TASK_ID, 4],
        [TASK_ID, 6],
        [TASK_ID, 100],
        [TASK_ID, 2],
      ]);
    });

    it("keeps a task's batches in order when its priority could not be read for the first of them", async () => {
      await harness.stop();
      let reads = 0;
      harness = await start({
        prefetch: 8,
        // The first read of the real-time task fails (the store was briefly unavailable): that batch waits in the normal lane.
        getTask: async (id, tasks) => {
          if (id === REALTIME_TASK_ID && reads++ === 0) throw new Error('store unavailable');
          return tasks.get(id);
        },
      });
      harness.gateway.hold();
      await send(batch(0, [2]), urgent(0, [4]), batch(1, [6]), urgent(1, [100]), urgent(2, [2], true));
      await waitFor(() => harness.left() === 5 && harness.gateway.deliveries.length === 1, {
        message: 'every message pulled, the first one in hand',
      });
      harness.gateway.release();
      await progressCount(5);
      // Its later batches were known as real-time, but stayed behind its first one.
      expect(progressOrder()).toEqual([
        [TASK_ID, 0, 0],
        [REALTIME_TASK_ID, 0, 0],
        [TASK_ID, 0, 1],
        [REALTIME_TASK_ID, 0, 1],
        [REALTIME_TASK_ID, 0, 2],
      ]);
    });

    it('pulls no more than its prefetch out of the inbox while the worker is held; the rest waits in ZeroMQ', async () => {
      await harness.stop();
      harness = await start({ prefetch: 3 });
      harness.gateway.hold();
      await send(...Array.from({ length: 10 }, (_, i) => batch(i, [ONLINE[i % ONLINE.length]!], i === 9)));
      await waitFor(() => harness.left() === 4 && harness.gateway.deliveries.length === 1, {
        message: 'one batch in hand, three prefetched',
      });
      // Were the bound not kept, the reader would take the other six at once: they are all in the socket.
      await expect(
        waitFor(() => harness.left() > 4, { timeoutMs: 200, message: 'a fifth message pulled' }),
      ).rejects.toThrow(WaitForTimeoutError);
      harness.gateway.release();
      await progressCount(10);
      expect(harness.progress.map((p) => p.from)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(harness.left()).toBe(10);
    });

    it('reads the real-time inbox while the main inbox has filled its prefetch, and hands its batches out first', async () => {
      await harness.stop();
      harness = await start({ prefetch: 2, realtimeInbox: true });
      harness.gateway.hold();
      await send(...Array.from({ length: 6 }, (_, i) => batch(i, [ONLINE[i % ONLINE.length]!], i === 5)));
      await waitFor(() => harness.left() === 3 && harness.gateway.deliveries.length === 1, {
        message: 'the main inbox at its bound',
      });
      await harness.realtimeDispatcher!.send(urgent(0, [100]));
      await harness.realtimeDispatcher!.send(urgent(1, [2], true));
      await waitFor(() => harness.realtimeLeft() === 2, { message: 'both real-time batches pulled' });
      expect(harness.left()).toBe(3);
      harness.gateway.release();
      await progressCount(8);
      expect(progressOrder()).toEqual([
        [TASK_ID, 0, 0],
        [REALTIME_TASK_ID, 0, 0],
        [REALTIME_TASK_ID, 0, 1],
        ...[1, 2, 3, 4, 5].map((from) => [TASK_ID, 0, from]),
      ]);
    });

    describe('a halt that closes its epoch', () => {
      const halted = () => harness.meter.total('herald_executor_halted_batches_total', { executor: 'executor-1' });
      const closing = { kind: 'task.halt', taskId: TASK_ID, epoch: 2, closesEpoch: true } as const;
      /** Batch i of unit 0: offset i, one online uin (so every batch goes through the gateway). */
      const unit = (epoch: number, from = 0) =>
        Array.from({ length: 10 - from }, (_, i) =>
          batch(from + i, [ONLINE[(from + i) % ONLINE.length]!], from + i === 9, { epoch }),
        );

      it("drops the task's batches queued behind the one in hand, prefetched or still in the socket, unstarted and unreported; a resume under a newer epoch delivers them once", async () => {
        await harness.stop();
        harness = await start({ prefetch: 2, realtimeInbox: true });
        harness.gateway.hold();
        await send(...unit(2));
        await waitFor(() => harness.left() === 3 && harness.gateway.deliveries.length === 1, {
          message: 'one batch in hand, two prefetched, seven in the socket',
        });
        // The preemption: the halt overtakes the queue on the real-time inbox, the real-time task's batch follows it.
        await harness.realtimeDispatcher!.send(closing);
        await harness.realtimeDispatcher!.send(urgent(0, [100], true));
        await waitFor(() => harness.realtimeLeft() === 2, { message: 'the halt and the real-time batch read' });
        harness.gateway.release();
        await waitFor(() => halted() === 9, { message: 'the nine batches behind the one in hand dropped' });
        await progressCount(2);
        expect(harness.left()).toBe(10); // the socket drained: nothing of the halted task is left to deliver later
        expect(deliveryOrder()).toEqual([
          [TASK_ID, ONLINE[0]], // in hand when the halt came: the one checkpoint interval
          [REALTIME_TASK_ID, 100],
        ]);
        expect(progressOrder()).toEqual([
          [TASK_ID, 0, 0],
          [REALTIME_TASK_ID, 0, 0],
        ]);

        // Resumed by its owner under a new epoch from its checkpoint (1): every batch passes, each recipient once in all.
        await send(...unit(3, 1));
        await progressCount(11);
        expect(harness.progress.slice(2).map((p) => [p.epoch, p.from])).toEqual(
          Array.from({ length: 9 }, (_, i) => [3, i + 1]),
        );
        const normal = harness.gateway.deliveries.filter((d) => d.taskId === TASK_ID).flatMap((d) => d.uins);
        expect(normal).toEqual(Array.from({ length: 10 }, (_, i) => ONLINE[i % ONLINE.length]!));
        expect(halted()).toBe(9);
        expect(staleBatches()).toBe(0); // dropped as halted, not as a deposed owner's
      });

      it('is read on the main inbox too, where it comes after what that inbox already holds', async () => {
        await send(batch(0, [2]), closing, batch(1, [4], true));
        await waitFor(() => halted() === 1, { message: 'the batch after the halt dropped' });
        await progressCount(1);
        expect(progressOrder()).toEqual([[TASK_ID, 0, 0]]);
      });

      it('leaves alone a halt that does not close its epoch (its owner may still run units under it), and other tasks and epochs', async () => {
        await harness.stop();
        harness = await start({ realtimeInbox: true });
        await harness.realtimeDispatcher!.send({ kind: 'task.halt', taskId: TASK_ID, epoch: 2 });
        await harness.realtimeDispatcher!.send({ ...closing, taskId: REALTIME_TASK_ID, epoch: 1 }); // another task, an older epoch
        await waitFor(() => harness.realtimeLeft() === 2, { message: 'both halts read' });
        await send(batch(0, [2]), urgent(0, [4], true, { epoch: 2 }), batch(1, [6], true));
        await progressCount(3);
        expect(halted()).toBe(0);
      });
    });

    it('loses and repeats nothing across a stop: prefetched batches are abandoned unwritten and come again from the checkpoint', async () => {
      await harness.stop();
      harness = await start({ prefetch: 3 });
      const first = harness;
      // Batch i is uins [2i + 1, 2i + 2] at offset 2i; only the first has online users (2, 4, 6): it holds the worker.
      const unit = Array.from({ length: 8 }, (_, i) => batch(2 * i, [2 * i + 1, 2 * i + 2], i === 7));
      first.gateway.hold();
      await send(...unit);
      await waitFor(() => first.left() === 4 && first.gateway.deliveries.length === 1, {
        message: 'one batch in hand, three prefetched',
      });
      await first.stopExecutor();

      const firstWritten = written();
      const handled = new Set(firstWritten.map((uin) => Math.floor((uin - 1) / 2))).size;
      await waitFor(() => first.progress.length === handled, { message: 'the reports of every batch written' });
      // A batch is written only if it was reported, and reported only after its writes.
      expect(firstWritten).toEqual(Array.from({ length: 2 * handled }, (_, i) => i + 1));
      expect(first.progress.map((p) => p.from)).toEqual(Array.from({ length: handled }, (_, i) => 2 * i));
      // The batch in hand, and at most the one whose taking woke the reader as the inbox closed; the rest was abandoned.
      expect(handled).toBeGreaterThanOrEqual(1);
      expect(handled).toBeLessThanOrEqual(2);
      await first.stop();

      // The scheduler's checkpoint is the end of the last reported batch; the unit runs again from there on a new executor.
      harness = await start();
      const checkpoint = first.progress.at(-1)!.to;
      await send(...unit.filter((b) => b.offset >= checkpoint));
      await progressCount(8 - handled);
      expect([...firstWritten, ...written()].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 16 }, (_, i) => i + 1),
      );
      expect(harness.progress.at(-1)).toMatchObject({ to: 16, done: true });
    });
  });
});

describe('executor: personalised content', () => {
  /** A user-attributes store that knows uins 2 and 6, and counts its calls. */
  const lookups: number[][] = [];
  const attributes: UserAttributeLookup = {
    getUsers: async (uins) => {
      lookups.push(Array.from(uins));
      return Array.from(uins, (uin) =>
        uin === 2 ? { uin, region: 'gd' } : uin === 6 ? { uin, region: 'sh' } : undefined,
      );
    },
  };

  beforeEach(async () => {
    lookups.length = 0;
    await harness.stop();
    harness = await start({ personaliser: new Personaliser(attributes) });
  });

  it("renders a template task's online recipients from one attribute lookup per batch", async () => {
    await send(
      batch(0, [1, 2, 3, 4], false, { taskId: TEMPLATE_TASK_ID }),
      batch(4, [5, 6, 100], true, { taskId: TEMPLATE_TASK_ID }),
    );
    await progressCount(2);
    expect(harness.gateway.deliveries).toEqual([
      {
        taskId: TEMPLATE_TASK_ID,
        uins: [2, 4],
        body: 'Hi {{region|default:"there"}}',
        atLogin: false,
        contents: ['Hi gd', 'Hi there'],
      },
      {
        taskId: TEMPLATE_TASK_ID,
        uins: [6, 100],
        body: 'Hi {{region|default:"there"}}',
        atLogin: false,
        contents: ['Hi sh', 'Hi there'],
      },
    ]);
    // Only the online part is looked up, once per batch; the offline part is rendered at login.
    expect(lookups).toEqual([
      [2, 4],
      [6, 100],
    ]);
    expect(harness.offline.appends.map((a) => a.uins)).toEqual([[1, 3], [5]]);
  });

  it('leaves a plain task alone: no lookup, one content for the batch', async () => {
    await send(batch(0, [1, 2, 4], true));
    await progressCount(1);
    expect(harness.gateway.deliveries).toEqual([{ taskId: TASK_ID, uins: [2, 4], body: 'flash sale', atLogin: false }]);
    expect(lookups).toEqual([]);
  });

  it('does not confirm a batch whose lookup failed: no delivery, no progress, counted by code', async () => {
    const failing = new Personaliser({
      getUsers: async () => Promise.reject(new HeraldError(ErrorCodes.STORE_CLOSED, 'closed')),
    });
    await harness.stop();
    harness = await start({ personaliser: failing });
    await send(batch(0, [2], false, { taskId: TEMPLATE_TASK_ID }), batch(0, [4], true));
    await progressCount(1);
    expect(harness.progress.map((p) => p.taskId)).toEqual([TASK_ID]);
    expect(harness.gateway.deliveries.map((d) => d.taskId)).toEqual([TASK_ID]);
    expect(harness.meter.total('herald_executor_errors_total', { executor: 'executor-1', code: 'STORE_CLOSED' })).toBe(
      1,
    );
  });
});
