import { compileConfig } from '@herald/core/config';
import { ListFlags } from '@herald/core/recipient-list';
import type { Counter, Logger, Meter } from '@herald/core/ports';
import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import {
  createPull,
  createPush,
  inprocEndpoint,
  type Message,
  type PullChannel,
  type PushChannel,
  type UnitBatch,
  type UnitRun,
} from '@herald/transport';
import { startDispatcher, type Dispatcher } from './dispatcher';

/**
 * An executor link whose sends the test lets through one by one: a send is
 * recorded when the dispatcher makes it and resolves only when a permit is
 * given, so "the batch in flight" is exactly the last recorded, unresolved one.
 */
class GatedChannel implements PushChannel {
  readonly sent: UnitBatch[] = [];
  /** Every message in send order, halts (never gated) included. */
  readonly messages: Message[] = [];
  private permits: number;
  private readonly waiting: (() => void)[] = [];

  constructor(permits = Infinity) {
    this.permits = permits;
  }

  async send(message: Message): Promise<void> {
    if (message.kind === 'task.halt') {
      this.messages.push(message);
      return;
    }
    if (message.kind !== 'unit.batch') throw new Error(`unexpected ${message.kind}`);
    this.sent.push(message);
    this.messages.push(message);
    if (this.permits > 0) {
      this.permits--;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  /** Lets `n` more sends through, the waiting ones first. */
  allow(n = Infinity): void {
    this.permits += n;
    while (this.permits > 0 && this.waiting.length > 0) {
      this.permits--;
      this.waiting.shift()!();
    }
  }

  close(): void {}

  /** Offsets sent under an epoch, in order. */
  offsets(epoch: number, unitNo?: number): number[] {
    return this.sent
      .filter((b) => b.epoch === epoch && (unitNo === undefined || b.unitNo === unitNo))
      .map((b) => b.offset);
  }

  /** Recipients sent more than once. */
  repeated(): number[] {
    const seen = new Set<number>();
    const twice: number[] = [];
    for (const batch of this.sent) {
      for (const uin of batch.uins) {
        if (seen.has(uin)) twice.push(uin);
        else seen.add(uin);
      }
    }
    return twice;
  }
}

class RecordingMeter implements Meter {
  readonly totals = new Map<string, number>();
  counter(name: string): Counter {
    return { inc: (_labels, value = 1) => void this.totals.set(name, (this.totals.get(name) ?? 0) + value) };
  }
  gauge() {
    return { set() {} };
  }
  histogram() {
    return { observe() {} };
  }
  total(name: string): number {
    return this.totals.get(name) ?? 0;
  }
}

class RecordingLogger implements Logger {
  readonly entries: { message: string; fields: Record<string, unknown> }[] = [];
  debug = (message: string, fields: Record<string, unknown> = {}) => void this.entries.push({ message, fields });
  info = this.debug;
  warn = this.debug;
  error = this.debug;
  has(message: string, fields: Record<string, unknown>): boolean {
    return this.entries.some(
      (e) => e.message === message && Object.entries(fields).every(([k, v]) => e.fields[k] === v),
    );
  }
}

const TASK = 7;
const BATCH = 10;
/** 200 recipients: unit 0 is [0, 100), unit 1 is [100, 200); uin = position + 1000. */
const UINS = Uint32Array.from({ length: 200 }, (_, i) => 1000 + i);

describe('dispatcher send-path fencing', () => {
  let dir: TempDir;
  let inbox: PullChannel;
  let toDispatcher: PushChannel;
  let executors: Map<string, GatedChannel>;
  /** e1 has a real-time inbox, e2 has none. */
  let realtimeE1: GatedChannel;
  let meter: RecordingMeter;
  let logger: RecordingLogger;
  let dispatcher: Dispatcher;
  let stopped: boolean;

  beforeEach(async () => {
    dir = await makeTempDir('herald-dispatcher-');
    const lists = new ListRepository(dir.path);
    await writeRecipientListFile(lists.pathOf('f_7'), UINS, ListFlags.SORTED | ListFlags.UNIQUE);
    const endpoint = inprocEndpoint('dispatcher-fencing');
    inbox = await createPull({ name: 'dispatcher', endpoint, highWaterMark: 64 });
    toDispatcher = await createPush({ name: 'scheduler-to-dispatcher', endpoints: [endpoint], highWaterMark: 64 });
    executors = new Map([
      ['e1', new GatedChannel()],
      ['e2', new GatedChannel()],
    ]);
    meter = new RecordingMeter();
    logger = new RecordingLogger();
    dispatcher = startDispatcher({
      config: compileConfig({ dispatcher: { batchSize: BATCH } }),
      inbox,
      toScheduler: { send: async () => undefined, close: () => undefined },
      toExecutor: executors,
      toRealtimeExecutor: new Map([['e1', (realtimeE1 = new GatedChannel())]]),
      lists,
      filters: [],
      logger,
      meter,
    });
    stopped = false;
  });

  afterEach(async () => {
    if (!stopped) await stop();
    await dir.remove();
  });

  /** Closes the inbox and waits until every stream has ended. */
  async function stop(): Promise<void> {
    stopped = true;
    toDispatcher.close();
    inbox.close();
    for (const channel of [...executors.values(), realtimeE1]) channel.allow();
    await dispatcher.done;
  }

  const e1 = () => executors.get('e1')!;
  const e2 = () => executors.get('e2')!;
  const run = (epoch: number, unitNo: 0 | 1, from = unitNo * 100): UnitRun => ({
    kind: 'unit.run',
    taskId: TASK,
    epoch,
    unitNo,
    filteredListId: 'f_7',
    start: unitNo * 100,
    end: unitNo * 100 + 100,
    from,
    executorId: unitNo === 0 ? 'e1' : 'e2',
    realtime: false,
  });
  const waitSent = (channel: GatedChannel, count: number, what: string) =>
    waitFor(() => channel.sent.length >= count, { message: what });
  const stoppedStream = (unitNo: number, epoch: number) =>
    waitFor(() => logger.has('unit stream stopped', { taskId: TASK, unitNo, epoch }), {
      message: `the epoch ${epoch} stream of unit ${unitNo} stops`,
    });
  const range = (from: number, to: number) => Array.from({ length: (to - from) / BATCH }, (_, i) => from + i * BATCH);

  it("streams a real-time unit to its executor's real-time inbox, or to its inbox where it has none", async () => {
    await toDispatcher.send({ ...run(1, 0), realtime: true });
    await toDispatcher.send({ ...run(1, 1), realtime: true });
    await waitFor(() => realtimeE1.sent.some((b) => b.last) && e2().sent.some((b) => b.last), {
      message: 'both real-time units streamed',
    });
    expect(realtimeE1.sent.map((b) => b.offset)).toEqual(range(0, 100));
    expect(e1().sent).toEqual([]);
    expect(e2().sent.map((b) => b.offset)).toEqual(range(100, 200));
  });

  it('drops a unit.run of an older epoch arriving after a newer one, for any unit of the task, and counts it', async () => {
    await toDispatcher.send(run(2, 0));
    await waitFor(() => e1().sent.some((b) => b.last), { message: 'the epoch 2 stream ends' });
    await toDispatcher.send(run(1, 0));
    await toDispatcher.send(run(1, 1));
    await waitFor(() => meter.total('herald_dispatcher_stale_runs_total') === 2, { message: 'two stale runs counted' });
    await stop();

    expect(e1().offsets(2)).toEqual(range(0, 100));
    expect(e1().offsets(1)).toEqual([]);
    expect(e2().sent).toEqual([]);
    expect(logger.has('unit.run of a deposed owner dropped', { taskId: TASK, unitNo: 1, epoch: 1, current: 2 })).toBe(
      true,
    );
  });

  it('a newer epoch stops every stream of the older one mid-unit: no recipient sent twice beyond the batch in flight', async () => {
    executors.set('e1', new GatedChannel(3));
    executors.set('e2', new GatedChannel(2));
    await toDispatcher.send(run(1, 0));
    await toDispatcher.send(run(1, 1));
    // Unit 0: batches 0, 10, 20 taken, 30 in flight. Unit 1: 100, 110 taken, 120 in flight.
    await waitSent(e1(), 4, 'unit 0 stalls on its fourth batch');
    await waitSent(e2(), 3, 'unit 1 stalls on its third batch');

    // The task's new owner resumes unit 0 from its checkpoint (30): the older owner's unit 1 stops too.
    await toDispatcher.send(run(2, 0, 30));
    await waitSent(e1(), 5, 'the epoch 2 stream of unit 0 starts');
    e2().allow(1); // unit 1's batch in flight goes; the stream must not send the next one
    await stoppedStream(1, 1);
    e1().allow();
    await stoppedStream(0, 1);
    await waitFor(() => e1().sent.some((b) => b.epoch === 2 && b.last), { message: 'unit 0 finishes under epoch 2' });
    await toDispatcher.send(run(2, 1, 120));
    e2().allow();
    await waitFor(() => e2().sent.some((b) => b.epoch === 2 && b.last), { message: 'unit 1 finishes under epoch 2' });
    await stop();

    expect(e1().offsets(1)).toEqual([0, 10, 20, 30]);
    expect(e1().offsets(2)).toEqual(range(30, 100));
    expect(e2().offsets(1)).toEqual([100, 110, 120]);
    expect(e2().offsets(2)).toEqual(range(120, 200));
    // Exactly the batch each old stream had in flight, nothing more.
    expect(e1().repeated()).toEqual([...UINS.subarray(30, 40)]);
    expect(e2().repeated()).toEqual([...UINS.subarray(120, 130)]);
    expect(meter.total('herald_dispatcher_superseded_streams_total')).toBe(2);
  });

  it('a task.halt stops only the streams at or below its epoch', async () => {
    executors.set('e1', new GatedChannel(1));
    await toDispatcher.send(run(2, 0));
    await waitSent(e1(), 2, 'the epoch 2 stream stalls on its second batch');
    // A deposed owner's late halt, then a stale run as a marker that the halt was handled.
    await toDispatcher.send({ kind: 'task.halt', taskId: TASK, epoch: 1 });
    await toDispatcher.send(run(1, 1));
    await waitFor(() => meter.total('herald_dispatcher_stale_runs_total') === 1, {
      message: 'the marker run was handled',
    });
    e1().allow();
    await waitFor(() => e1().sent.some((b) => b.last), { message: 'the epoch 2 stream runs to its end' });
    expect(e1().offsets(2)).toEqual(range(0, 100));

    // The current owner's halt does stop its own stream.
    executors.set('e2', new GatedChannel(1));
    await toDispatcher.send(run(2, 1));
    await waitSent(e2(), 2, 'unit 1 stalls on its second batch');
    await toDispatcher.send({ kind: 'task.halt', taskId: TASK, epoch: 2 });
    await toDispatcher.send(run(1, 1)); // marker again
    await waitFor(() => meter.total('herald_dispatcher_stale_runs_total') === 2, { message: 'the halt was handled' });
    e2().allow();
    await stoppedStream(1, 2);
    await stop();
    expect(e2().offsets(2)).toEqual([100, 110]);
  });

  it('forwards a halt that closes its epoch to the real-time inbox of each executor it streamed the task to, ahead of later batches there', async () => {
    executors.set('e1', new GatedChannel(1));
    await toDispatcher.send(run(1, 0)); // to e1, which has a real-time inbox
    await toDispatcher.send(run(1, 1)); // to e2, which has none
    await waitSent(e1(), 2, 'unit 0 stalls on its second batch');
    await waitSent(e2(), 1, 'unit 1 streams');
    const marker = async (stale: number) => {
      await toDispatcher.send(run(0, 1)); // below every epoch seen: dropped and counted once handled
      await waitFor(() => meter.total('herald_dispatcher_stale_runs_total') === stale, {
        message: 'the messages before the marker were handled',
      });
    };

    // A halt that does not close its epoch (the owner may run units under it again) stays here.
    await toDispatcher.send({ kind: 'task.halt', taskId: TASK, epoch: 1 });
    await marker(1);
    expect(realtimeE1.messages).toEqual([]);

    const closing = { kind: 'task.halt', taskId: TASK, epoch: 1, closesEpoch: true } as const;
    await toDispatcher.send(closing);
    await toDispatcher.send({ ...closing, taskId: 99 }); // never streamed here: nothing on its way to drop
    await toDispatcher.send({ ...run(1, 0), taskId: 8, realtime: true, filteredListId: 'f_7' }); // a real-time unit after the halt
    await waitFor(() => realtimeE1.sent.some((b) => b.last), { message: 'the real-time unit streamed' });
    await marker(2);
    // e1's real-time inbox: the halt first, then the real-time batches; e2 (no real-time inbox) gets no halt.
    expect(realtimeE1.messages[0]).toEqual(closing);
    expect(realtimeE1.messages.slice(1).every((m) => m.kind === 'unit.batch' && m.taskId === 8)).toBe(true);
    expect(e2().messages.every((m) => m.kind === 'unit.batch')).toBe(true);
    expect(meter.total('herald_dispatcher_forwarded_halts_total')).toBe(1);
    await stop();
  });
});
