import { ErrorCodes, HeraldError } from '@herald/core';
import type { ChannelPacingOptions } from '@herald/core/pacing';
import type { Delivery, DeliveryGateway, DeliveryResult, OfflineStore, TaskStore } from '@herald/core/ports';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Task } from '@herald/core/task';
import { newTask, waitFor } from '@herald/testing';
import type { UnitBatch, UnitProgressMessage } from '@herald/transport';
import { openExecutorLinks, type ExecutorLinks } from './executor-links.test-util';
import { startExecutor, type Executor } from './executor';
import { PacedDeliveryGateway } from './paced-gateway';
import { TaskCache } from './task-cache';

const TASK_ID = 9;
const HOLD_REPORT_EVERY_MS = 200;

/** A channel answering each send with its next step, then accepting everything. */
class ScriptedChannel implements DeliveryGateway {
  readonly steps: (DeliveryResult | HeraldError)[] = [];
  async deliver(_delivery: Delivery): Promise<DeliveryResult> {
    const step = this.steps.shift() ?? { rejected: [] };
    if (step instanceof HeraldError) throw step;
    return step;
  }
  async close(): Promise<void> {}
}

const pacing: ChannelPacingOptions = {
  initialRate: 1_000_000,
  minRate: 100_000,
  maxRate: 1_000_000,
  increasePerSecond: 0,
  decreaseFactor: 0.5,
  burstMs: 1000,
  cutSpacingMs: 0,
  throttleDelayMs: 20,
  latencyFloorMs: 10_000,
  latencyRiseFactor: 2,
  failureThreshold: 5,
  failureDelayMs: 1,
  openMs: 30,
};

describe("executor: the channel's outcomes in its progress reports", () => {
  let channel: ScriptedChannel;
  let gateway: PacedDeliveryGateway;
  let links: ExecutorLinks;
  let executor: Executor;
  let progress: UnitProgressMessage[];

  beforeEach(async () => {
    channel = new ScriptedChannel();
    gateway = new PacedDeliveryGateway(channel, { channel: 'webhook', pacing, maxHoldMs: 10_000 });
    progress = [];
    links = await openExecutorLinks(
      `channel-${expect.getState().currentTestName!.length}`,
      (p) => progress.push(p),
      true,
    );
    const online = new TypedArrayBitmap(1024);
    for (let uin = 1; uin < 100; uin++) online.setOnline(uin, true);
    const task = { ...newTask({ content: { body: 'hi' } }), id: TASK_ID, epoch: 1 } as unknown as Task;
    const store = { getTask: async () => task } as unknown as TaskStore;
    const offline = { append: async () => undefined } as unknown as OfflineStore;
    executor = startExecutor({
      id: 'executor-1',
      inbox: links.inbox,
      toScheduler: links.toScheduler,
      tasks: new TaskCache(store),
      online,
      gateway,
      channel: gateway,
      holdReportEveryMs: HOLD_REPORT_EVERY_MS,
      offline,
    });
  });
  afterEach(async () => {
    await links.close(executor);
    await gateway.close();
  });

  const batch = (offset: number, uins: number[], last = false): UnitBatch => ({
    kind: 'unit.batch',
    taskId: TASK_ID,
    epoch: 1,
    unitNo: 0,
    offset,
    last,
    uins: Uint32Array.from(uins),
  });

  it('reports dead letters by reason with their batch, not as delivered', async () => {
    channel.steps.push({
      rejected: [
        { uin: 2, reason: 'unregistered' },
        { uin: 3, reason: 'unregistered' },
        { uin: 4, reason: 'bad_device_token' },
      ],
    });
    await links.dispatcher.send(batch(0, [1, 2, 3, 4], true));
    await waitFor(() => progress.length === 1, { message: 'one report' });
    expect(progress[0]).toMatchObject({
      from: 0,
      to: 4,
      delivered: 1,
      deadLetters: { unregistered: 2, bad_device_token: 1 },
    });
    expect(progress[0]!.refused).toBeUndefined();
  });

  it('reports a batch refused whole with the refusal, every recipient a dead letter', async () => {
    channel.steps.push(
      new HeraldError(
        ErrorCodes.DELIVERY_REJECTED,
        'webhook https://h.example/in?token=s3cr3t: HTTP 400: payload refused',
      ),
    );
    await links.dispatcher.send(batch(0, [1, 2]));
    await waitFor(() => progress.length === 1, { message: 'one report' });
    expect(progress[0]).toMatchObject({
      delivered: 0,
      deadLetters: { batch_refused: 2 },
      refused: 'webhook https://h.example/in?token=*** HTTP 400: payload refused',
    });
  });

  it('tells the hold while the channel throttles the batch in hand, then reports the batch without it', async () => {
    channel.steps.push(
      new HeraldError(ErrorCodes.DELIVERY_THROTTLED, 'HTTP 429', { retriable: true, details: { retryAfterMs: 50 } }),
    );
    await links.dispatcher.send(batch(0, [1, 2], true));
    await waitFor(() => progress.some((p) => p.to === 2), { message: 'the batch reported' });
    // A repeat of the hold (a machine slow enough to let a 50 ms hold last 200) says nothing new.
    const [hold, cleared, done] = progress.filter((p, i) => i === 0 || !sameHold(p, progress[i - 1]!));
    expect(hold).toMatchObject({
      from: 0,
      to: 0,
      delivered: 0,
      done: false,
      channel: { state: 'throttled', reason: 'HTTP 429' },
    });
    expect(cleared).toMatchObject({ from: 0, to: 0 });
    expect(cleared!.channel).toBeUndefined();
    expect(done).toMatchObject({ from: 0, to: 2, delivered: 2, done: true });
    expect(done!.channel).toBeUndefined();
  });

  it('repeats the hold while it lasts, so the scheduler hears the executor is alive', async () => {
    const HOLD_MS = 5 * HOLD_REPORT_EVERY_MS;
    channel.steps.push(
      new HeraldError(ErrorCodes.DELIVERY_THROTTLED, 'HTTP 429', {
        retriable: true,
        details: { retryAfterMs: HOLD_MS },
      }),
    );
    await links.dispatcher.send(batch(0, [1, 2], true));
    await waitFor(() => progress.some((p) => p.to === 2), { message: 'the batch reported', timeoutMs: 30_000 });
    const holds = progress.filter((p) => p.channel !== undefined);
    // One when the hold began, then one a period while it lasted (a late timer may skip one).
    expect(holds.length).toBeGreaterThanOrEqual(3);
    for (const hold of holds) expect(hold).toMatchObject({ from: 0, to: 0, channel: { state: 'throttled' } });
    const last = progress.length - 1;
    expect(progress[last]).toMatchObject({ from: 0, to: 2, done: true });
    expect(progress[last - 1]).toMatchObject({ from: 0, to: 0 });
    expect(progress[last - 1]!.channel).toBeUndefined();
    // Nothing after the hold ended: the repeats stopped with it.
    const count = progress.length;
    await new Promise((resolve) => setTimeout(resolve, 2 * HOLD_REPORT_EVERY_MS));
    expect(progress).toHaveLength(count);
  });
});

/** Two hold reports telling the same thing (a repeat while the hold lasts). */
function sameHold(a: UnitProgressMessage, b: UnitProgressMessage): boolean {
  return (
    a.from === a.to &&
    b.from === b.to &&
    a.channel?.state === b.channel?.state &&
    a.channel?.reason === b.channel?.reason
  );
}
