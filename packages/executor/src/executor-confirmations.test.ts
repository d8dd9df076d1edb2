import type { DeliveryRecord } from '@herald/core/fate';
import { TypedArrayBitmap } from '@herald/core/presence';
import type { Delivery, DeliveryGateway, DeliveryRecordLog, OfflineStore, TaskStore } from '@herald/core/ports';
import { newTask, waitFor } from '@herald/testing';
import { createPull, createPush, inprocEndpoint, type UnitBatch, type UnitProgressMessage } from '@herald/transport';
import { CONFIRMATIONS_IN_FLIGHT, RECORDS_PER_WRITE, startExecutor } from './executor';
import { TaskCache } from './task-cache';

const TASK_ID = 5;

/** Delivery records whose writes (each of one or several records) land only when the test lets each one (or fail it). */
class HeldRecords implements DeliveryRecordLog {
  /** The records' positions, in the order their writes started. */
  readonly started: number[] = [];
  readonly landed: number[] = [];
  /** Each write's records' positions, in the order the writes started. */
  readonly writes: number[][] = [];
  private readonly gates: { froms: number[]; land: () => void; fail: (error: Error) => void }[] = [];
  recordBatch(record: DeliveryRecord): Promise<void> {
    return this.recordBatches([record]);
  }
  recordBatches(records: readonly DeliveryRecord[]): Promise<void> {
    const froms = records.map((record) => record.from);
    this.started.push(...froms);
    this.writes.push(froms);
    return new Promise<void>((resolve, reject) =>
      this.gates.push({
        froms,
        land: () => {
          this.landed.push(...froms);
          resolve();
        },
        fail: reject,
      }),
    );
  }
  /** Lands the write that holds the record at `from` (and so every record written with it). */
  land(from: number): void {
    this.gateOf(from).land();
  }
  fail(from: number): void {
    this.gateOf(from).fail(new Error('disk full'));
  }
  private gateOf(from: number) {
    const gate = this.gates.find((g) => g.froms.includes(from));
    if (gate === undefined) throw new Error(`no record write of ${from} started`);
    return gate;
  }
  batchAt = async () => undefined;
  purgeTask = async () => ({ batches: 0, logins: 0 });
  batchesFrom = async function* () {};
  recordLogins = async () => undefined;
  loginOf = async () => undefined;
  loginsFrom = async function* () {};
  loginCounts = async () => ({ delivered: 0, expired: 0, over_frequency: 0 });
  close = async () => undefined;
}

async function start() {
  const inbox = await createPull({ name: 'ex-c', endpoint: inprocEndpoint('ex-c'), highWaterMark: 100 });
  const dispatcher = await createPush({ name: 'dispatcher-c', endpoints: [inbox.endpoint], highWaterMark: 100 });
  const schedulerInbox = await createPull({ name: 'sched-c', endpoint: inprocEndpoint('sched-c'), highWaterMark: 100 });
  const toScheduler = await createPush({ name: 'ex-c-out', endpoints: [schedulerInbox.endpoint], highWaterMark: 100 });
  const progress: UnitProgressMessage[] = [];
  const received = (async () => {
    for await (const message of schedulerInbox.messages()) if (message.kind === 'unit.progress') progress.push(message);
  })();
  const task = { ...newTask({ content: { body: 'hi' }, expiresAt: 1_700_000_060_000 }), id: TASK_ID, epoch: 2 };
  const store = { getTask: async (id: number) => (id === TASK_ID ? task : undefined) } as unknown as TaskStore;
  const delivered: number[][] = [];
  const gateway: DeliveryGateway = {
    async deliver(delivery: Delivery) {
      delivered.push([...delivery.uins]);
    },
    close: async () => undefined,
  };
  const offline = { append: async () => undefined } as unknown as OfflineStore;
  const online = new TypedArrayBitmap(1024);
  for (let uin = 0; uin < 1024; uin++) online.setOnline(uin, true);
  const records = new HeldRecords();
  const executor = startExecutor({
    id: 'executor-1',
    inbox,
    toScheduler,
    tasks: new TaskCache(store),
    online,
    gateway,
    offline,
    records,
  });
  let closed = false;
  const closeInbox = () => {
    if (closed) return;
    closed = true;
    dispatcher.close();
    inbox.close();
  };
  return {
    dispatcher,
    done: executor.done,
    closeInbox,
    records,
    delivered,
    progress,
    async stop() {
      closeInbox();
      await executor.done;
      toScheduler.close();
      schedulerInbox.close();
      await received;
    },
  };
}

function batch(offset: number, uins: number[], last = false): UnitBatch {
  return { kind: 'unit.batch', taskId: TASK_ID, epoch: 2, unitNo: 0, offset, last, uins: Uint32Array.from(uins) };
}

const reported = (progress: UnitProgressMessage[]) => progress.map((p) => [p.from, p.to]);
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

/** Lands the record writes of batches 0, 2, 4, ... in the order they started, each once the batches before it were reported. */
async function landInOrder(h: Awaited<ReturnType<typeof start>>, count: number): Promise<void> {
  for (let landed = 0; landed < count;) {
    await waitFor(() => h.records.writes.some((w) => w.includes(2 * landed)));
    const write = h.records.writes.find((w) => w.includes(2 * landed))!;
    // Not one batch of the write is reported before it landed.
    expect(h.progress.length).toBe(landed);
    h.records.land(2 * landed);
    landed += write.length;
    await waitFor(() => h.progress.length === landed);
  }
}

describe('executor: a batch is confirmed while the next one is written', () => {
  it('writes the next batches while their records wait, and reports each batch only after its record, in order', async () => {
    const h = await start();
    try {
      await h.dispatcher.send(batch(0, [1, 2]));
      await h.dispatcher.send(batch(2, [3, 4]));
      await h.dispatcher.send(batch(4, [5, 6], true));
      // Every record is held: the worker writes all three batches meanwhile, none is reported.
      await waitFor(() => h.delivered.length === 3 && h.records.started.length === 3);
      await turns(20);
      expect(h.records.started).toEqual([0, 2, 4]);
      expect(h.progress).toEqual([]);
      await landInOrder(h, 3);
      expect(reported(h.progress)).toEqual([
        [0, 2],
        [2, 4],
        [4, 6],
      ]);
      expect(h.progress[2]!.done).toBe(true);
    } finally {
      h.records.started.forEach((from) => h.records.landed.includes(from) || h.records.land(from));
      await h.stop();
    }
  });

  it(`writes at most ${RECORDS_PER_WRITE} records in one write, in the order of their batches`, async () => {
    const h = await start();
    try {
      const count = 10;
      for (let i = 0; i < count; i++) await h.dispatcher.send(batch(2 * i, [2 * i, 2 * i + 1], i === count - 1));
      await landInOrder(h, count);
      expect(h.records.writes.flat()).toEqual(Array.from({ length: count }, (_, i) => 2 * i));
      for (const write of h.records.writes) expect(write.length).toBeLessThanOrEqual(RECORDS_PER_WRITE);
      expect(reported(h.progress)).toEqual(Array.from({ length: count }, (_, i) => [2 * i, 2 * i + 2]));
    } finally {
      await h.stop();
    }
  });

  it(`writes no more than ${CONFIRMATIONS_IN_FLIGHT} batches ahead of a record that has not landed`, async () => {
    const h = await start();
    try {
      const count = CONFIRMATIONS_IN_FLIGHT + 3;
      for (let i = 0; i < count; i++) await h.dispatcher.send(batch(2 * i, [2 * i, 2 * i + 1], i === count - 1));
      // Held: the first record's write; in line behind it, the next ones; the worker waits on the one after them.
      // So a crash now loses at most CONFIRMATIONS_IN_FLIGHT + 1 batches, none of them reported.
      await waitFor(() => h.delivered.length === CONFIRMATIONS_IN_FLIGHT + 1);
      await turns(20);
      expect(h.delivered).toHaveLength(CONFIRMATIONS_IN_FLIGHT + 1);
      expect(h.progress).toEqual([]);
      await landInOrder(h, count);
      expect(reported(h.progress)).toEqual(Array.from({ length: count }, (_, i) => [2 * i, 2 * i + 2]));
    } finally {
      await h.stop();
    }
  });

  it('does not report the batches whose record write failed; the batches after them are still confirmed', async () => {
    const h = await start();
    try {
      await h.dispatcher.send(batch(0, [1, 2]));
      // Alone in the inbox: its record is written at the end of the turn, not held for a group.
      await waitFor(() => h.records.started.length === 1);
      h.records.fail(0);
      await h.dispatcher.send(batch(2, [3, 4]));
      await waitFor(() => h.records.started.includes(2));
      h.records.land(2);
      await waitFor(() => h.progress.length === 1);
      // The scheduler ignores it (its checkpoint stays at 0) until batch 0 comes again.
      expect(reported(h.progress)).toEqual([[2, 4]]);
    } finally {
      await h.stop();
    }
  });

  it('reports the batch in hand before it is done stopping', async () => {
    const h = await start();
    try {
      await h.dispatcher.send(batch(0, [1, 2]));
      await waitFor(() => h.records.started.length === 1);
      h.closeInbox();
      let done = false;
      const stopped = h.done.then(() => (done = true));
      await turns(20);
      expect(done).toBe(false);
      h.records.land(0);
      await stopped;
      await waitFor(() => h.progress.length === 1);
      expect(reported(h.progress)).toEqual([[0, 2]]);
    } finally {
      await h.stop();
    }
  });
});
