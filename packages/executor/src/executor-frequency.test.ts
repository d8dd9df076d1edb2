import { compileFrequencyPolicy, dayOf } from '@herald/core/frequency';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Delivery, DeliveryGateway, FrequencyCounter, FrequencyUse, TaskStore } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { LevelFrequencyCounter, LevelOfflineStore } from '@herald/store-level';
import { makeTempDir, newTask, waitFor, type TempDir } from '@herald/testing';
import type { UnitBatch, UnitProgressMessage } from '@herald/transport';
import { startExecutor, type Executor } from './executor';
import { openExecutorLinks, type ExecutorLinks } from './executor-links.test-util';
import { TaskCache } from './task-cache';

/*
 * The executor's side of frequency control (docs/frequency.md): every
 * batch's online users are counted for the task, on the local day of the
 * delivery, before the batch is reported.
 */

const H = 3_600_000;
const MIDNIGHT = Date.UTC(2024, 2, 10);
const policy = compileFrequencyPolicy();
const D = dayOf(policy, MIDNIGHT);
const ONLINE = [2, 4, 6, 100];

class Gateway implements DeliveryGateway {
  readonly delivered: number[][] = [];
  async deliver(delivery: Delivery): Promise<void> {
    this.delivered.push([...delivery.uins]);
  }
  async close(): Promise<void> {}
}

/** The shared counter, with a switch that makes the next consume fail (the counter's server down), and a log of what was counted. */
class FlakyCounter implements FrequencyCounter {
  failNext = false;
  readonly consumed: FrequencyUse[] = [];
  constructor(private readonly inner: FrequencyCounter) {}
  used(uins: Uint32Array, day: number): Promise<Uint32Array> {
    return this.inner.used(uins, day);
  }
  async consume(uses: readonly FrequencyUse[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error('counter unavailable');
    }
    await this.inner.consume(uses);
    this.consumed.push(...uses.map((u) => ({ ...u, uins: u.uins.slice() })));
  }
  close(): Promise<void> {
    return this.inner.close();
  }
}

let dir: TempDir;
let level: LevelFrequencyCounter;
let offline: LevelOfflineStore;
let counter: FlakyCounter;
let gateway: Gateway;
let executor: Executor;
let links: ExecutorLinks;
/** Each progress report, with what the counter had counted when it arrived. */
let reports: { progress: UnitProgressMessage; countedBefore: number }[];
const clock = {
  at: MIDNIGHT + 10 * H,
  now() {
    return this.at;
  },
};

beforeEach(async () => {
  dir = await makeTempDir('herald-executor-frequency-');
  level = await LevelFrequencyCounter.open(`${dir.path}/frequency`);
  offline = await LevelOfflineStore.open(`${dir.path}/offline`, { rangeBits: 8 });
  counter = new FlakyCounter(level);
  gateway = new Gateway();
  clock.at = MIDNIGHT + 10 * H;
  reports = [];
  links = await openExecutorLinks('executor-f', (progress) =>
    reports.push({ progress, countedBefore: counter.consumed.length }),
  );
  const online = new TypedArrayBitmap(1024);
  for (const uin of ONLINE) online.setOnline(uin, true);
  const tasks = new Map(
    [5, 7].map((id) => [id, { ...newTask({ expiresAt: MIDNIGHT + 48 * H }), id, epoch: 2 } as unknown as Task]),
  );
  const store = { getTask: async (id: number) => tasks.get(id) } as unknown as TaskStore;
  executor = startExecutor({
    id: 'executor-f',
    inbox: links.inbox,
    toScheduler: links.toScheduler,
    tasks: new TaskCache(store),
    online,
    gateway,
    offline,
    frequency: { policy, counter },
    clock,
  });
});

afterEach(async () => {
  await links.close(executor);
  await level.close();
  await offline.close();
  await dir.remove();
});

const batch = (taskId: number, offset: number, uins: number[]): UnitBatch => ({
  kind: 'unit.batch',
  taskId,
  epoch: 2,
  unitNo: 0,
  offset,
  last: false,
  uins: Uint32Array.from(uins),
});
const usedOn = async (day: number, ...uins: number[]) => [...(await level.used(Uint32Array.from(uins), day))];
const reportsCount = (n: number) => waitFor(() => reports.length >= n, { message: `${n} progress reports` });

describe('executor with frequency control', () => {
  it("counts a batch's online users for the task, on the day of delivery, before it reports the batch", async () => {
    await links.dispatcher.send(batch(5, 0, [1, 2, 3, 4, 5, 6]));
    await reportsCount(1);
    expect(reports[0]!.countedBefore).toBe(1);
    expect(counter.consumed.map((u) => [u.taskId, u.day, [...u.uins]])).toEqual([[5, D, [2, 4, 6]]]);
    // Offline users are not counted here: they count when their entry is delivered at login.
    expect(await usedOn(D, 1, 2, 3, 4, 5, 6)).toEqual([0, 1, 0, 1, 0, 1]);
  });

  it('counts a user once per task, however often a batch comes again, and once more for another task', async () => {
    await links.dispatcher.send(batch(5, 0, [2, 3, 4]));
    await reportsCount(1);
    await links.dispatcher.send(batch(5, 0, [2, 3, 4])); // the same batch again: reported from memory, not delivered again
    await links.dispatcher.send(batch(5, 0, [2, 3, 4, 6])); // cut differently (a re-run): delivered again, counted idempotently
    await links.dispatcher.send(batch(7, 0, [2, 100]));
    await reportsCount(4);
    expect(gateway.delivered).toEqual([
      [2, 4],
      [2, 4, 6],
      [2, 100],
    ]);
    expect(await usedOn(D, 2, 4, 6, 100)).toEqual([2, 1, 1, 1]);
  });

  it('does not report a batch whose count failed; the batch sent again is delivered and counted', async () => {
    counter.failNext = true;
    await links.dispatcher.send(batch(5, 0, [2, 3]));
    await links.dispatcher.send(batch(7, 0, [4]));
    await reportsCount(1);
    expect(reports.map((r) => r.progress.taskId)).toEqual([7]); // task 5's batch stays before its checkpoint
    await links.dispatcher.send(batch(5, 0, [2, 3]));
    await reportsCount(2);
    expect(reports[1]!.progress).toMatchObject({ taskId: 5, from: 0, to: 2, delivered: 1, offline: 1 });
    expect(await usedOn(D, 2, 4)).toEqual([1, 1]);
  });

  it('counts on the local day the delivery happens, across midnight', async () => {
    clock.at = MIDNIGHT + 24 * H - 1;
    await links.dispatcher.send(batch(5, 0, [2]));
    await reportsCount(1);
    clock.at = MIDNIGHT + 24 * H;
    await links.dispatcher.send(batch(5, 1, [4]));
    await reportsCount(2);
    expect(await usedOn(D, 2, 4)).toEqual([1, 0]);
    expect(await usedOn(D + 1, 2, 4)).toEqual([0, 1]);
  });
});
