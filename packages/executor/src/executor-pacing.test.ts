import {
  noopMeter,
  type Delivery,
  type DeliveryGateway,
  type Meter,
  type OfflineStore,
  type TaskStore,
} from '@herald/core/ports';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Task } from '@herald/core/task';
import { newTask, waitFor } from '@herald/testing';
import type { UnitBatch, UnitProgressMessage } from '@herald/transport';
import { startExecutor, type Executor } from './executor';
import { openExecutorLinks, type ExecutorLinks } from './executor-links.test-util';
import { TaskCache } from './task-cache';

/*
 * Pacing (pacer.ts): a task with a speed is sent at it, batch by batch, from
 * its token bucket. The clock and the sleeps are the test's: each step moves
 * the clock by the wait the pacer asked for and wakes it; no wall-clock time
 * is measured.
 */

const T0 = 1_700_000_000_000;
/** Paced at 10 recipients/s (burst 10); task 7 has no speed. */
const PACED = 5;
const UNPACED = 7;
/** A real-time task, unpaced. */
const REALTIME = 9;
const SPEEDS = new Map([[PACED, 10]]);

class Gateway implements DeliveryGateway {
  readonly delivered: number[][] = [];
  async deliver(delivery: Delivery): Promise<void> {
    this.delivered.push([...delivery.uins]);
  }
  async close(): Promise<void> {}
}

const offline = { append: async () => {} } as unknown as OfflineStore;

let executor: Executor;
let links: ExecutorLinks;
let reports: UnitProgressMessage[];
let gateway: Gateway;
const clock = {
  at: T0,
  now() {
    return this.at;
  },
};
/** Sleeps the pacer asked for and that have not ended yet. */
let sleeps: { ms: number; wake: () => void }[];
/** herald_executor_paced_recipients_total, as the executor counted it. */
let paced: number;
const meter: Meter = {
  ...noopMeter,
  counter: (name) =>
    name === 'herald_executor_paced_recipients_total'
      ? { inc: (_labels, value = 1) => void (paced += value) }
      : noopMeter.counter(name, ''),
};

beforeEach(async () => {
  clock.at = T0;
  sleeps = [];
  paced = 0;
  reports = [];
  gateway = new Gateway();
  links = await openExecutorLinks('executor-p', (progress) => reports.push(progress));
  const online = new TypedArrayBitmap(1024);
  for (let uin = 0; uin < 1024; uin++) online.setOnline(uin, true);
  const tasks = new Map(
    [PACED, UNPACED, REALTIME].map((id) => [
      id,
      {
        ...newTask({ expiresAt: T0 + 86_400_000, priority: id === REALTIME ? 'realtime' : 'normal' }),
        id,
        epoch: 1,
      } as unknown as Task,
    ]),
  );
  const store = { getTask: async (id: number) => tasks.get(id) } as unknown as TaskStore;
  const sleep = (ms: number) => new Promise<void>((wake) => sleeps.push({ ms, wake }));
  executor = startExecutor({
    id: 'executor-p',
    inbox: links.inbox,
    toScheduler: links.toScheduler,
    tasks: new TaskCache(store),
    online,
    gateway,
    offline,
    clock,
    // Asynchronous, as the production share (speed-share.ts) is.
    pacing: { speedOf: async (task) => SPEEDS.get(task.id), sleep },
    meter,
  });
});

afterEach(() => links.close(executor));

/** Batch n of a task's unit 0: `size` uins from n * size. */
const batch = (taskId: number, n: number, size = 10): UnitBatch => ({
  kind: 'unit.batch',
  taskId,
  epoch: 1,
  unitNo: 0,
  offset: n * size,
  last: false,
  uins: Uint32Array.from({ length: size }, (_, i) => n * size + i),
});

/** Waits until `count` batches are reported and the next one waits for its tokens (or `waiting` is false). */
async function released(count: number, waiting = true): Promise<void> {
  await waitFor(() => reports.length >= count && (!waiting || sleeps.length > 0), {
    message: `${count} batches reported${waiting ? ', the next waiting' : ''}`,
  });
  expect(reports).toHaveLength(count);
}

/** Moves the clock by the wait the pacer asked for, and ends that wait. Returns the wait. */
function step(): number {
  expect(sleeps).toHaveLength(1);
  const { ms, wake } = sleeps.shift()!;
  clock.at += ms;
  wake();
  return ms;
}

describe('executor pacing', () => {
  it('sends a paced task at its speed: the burst at once, then one batch per refill', async () => {
    for (let n = 0; n < 5; n++) await links.dispatcher.send(batch(PACED, n));
    await released(1); // the bucket starts full: one batch of 10
    const waits: number[] = [];
    const perStep: number[] = [];
    for (let k = 2; k <= 5; k++) {
      waits.push(step());
      await released(k, k < 5);
      perStep.push(reports.length);
    }
    expect(waits).toEqual([1000, 1000, 1000, 1000]); // 10 recipients at 10/s
    expect(perStep).toEqual([2, 3, 4, 5]); // one batch released per step
    expect(clock.at - T0).toBe(4000);
    expect(sleeps).toEqual([]);
    expect(reports.map((r) => r.from)).toEqual([0, 10, 20, 30, 40]);
    expect(paced).toBe(50); // every recipient went through the bucket
  });

  it('a batch above the burst goes out whole from a full bucket, and the next one waits the debt off', async () => {
    await links.dispatcher.send(batch(PACED, 0, 25));
    await links.dispatcher.send(batch(PACED, 1, 25));
    await released(1);
    expect(step()).toBe(2500); // 15 owed + 10 (the burst) needed, at 10/s
    await released(2, false);
  });

  it('leaves a task without a speed unpaced, and time passed refills the paced one', async () => {
    for (let n = 0; n < 4; n++) await links.dispatcher.send(batch(UNPACED, n));
    await released(4, false);
    expect(sleeps).toEqual([]);
    expect(paced).toBe(0); // none of them through a bucket
    await links.dispatcher.send(batch(PACED, 0));
    await released(5, false);
    clock.at += 500;
    await links.dispatcher.send(batch(PACED, 1));
    await released(5);
    expect(step()).toBe(500); // half refilled by the time passed: half a second more
    await released(6, false);
  });

  it('handles a real-time batch that arrives while a normal batch waits for its tokens, and the wait goes on', async () => {
    await links.dispatcher.send(batch(PACED, 0));
    await links.dispatcher.send(batch(PACED, 1));
    await released(1);
    await links.dispatcher.send(batch(REALTIME, 0));
    await released(2); // the paced batch still waits: its sleep is the one pending
    expect(reports.map((r) => r.taskId)).toEqual([PACED, REALTIME]);
    expect(step()).toBe(1000); // the same wait, not a new one
    await released(3, false);
    expect(reports.map((r) => r.taskId)).toEqual([PACED, REALTIME, PACED]);
    expect(sleeps).toEqual([]);
  });

  it('stopping abandons a batch waiting for its tokens: neither delivered nor reported', async () => {
    await links.dispatcher.send(batch(PACED, 0));
    await links.dispatcher.send(batch(PACED, 1));
    await released(1);
    links.dispatcher.close();
    links.inbox.close();
    await executor.done;
    expect(reports).toHaveLength(1);
    expect(gateway.delivered).toHaveLength(1);
  });
});
