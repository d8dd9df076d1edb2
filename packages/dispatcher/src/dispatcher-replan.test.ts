import { compileConfig } from '@herald/core/config';
import { ListFlags } from '@herald/core/recipient-list';
import { noopLogger } from '@herald/core/ports';
import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import {
  createPull,
  createPush,
  inprocEndpoint,
  type Message,
  type PullChannel,
  type PushChannel,
  type UnitRun,
} from '@herald/transport';
import { startDispatcher, type Dispatcher } from './dispatcher';

/** A unit.run naming an executor whose load reports stopped is not streamed: the owner is told of a live one. */
describe('dispatcher: units of an executor that stopped reporting', () => {
  let dir: TempDir;
  let inbox: PullChannel;
  let toDispatcher: PushChannel;
  let dispatcher: Dispatcher;
  let now = 10_000;
  const toScheduler: Message[] = [];
  const sent = new Map<string, Message[]>([
    ['e1', []],
    ['e2', []],
  ]);
  const channel = (id: string): PushChannel => ({ send: async (m) => void sent.get(id)!.push(m), close() {} });

  const report = (executorId: string): Message => ({
    kind: 'host.load',
    report: {
      executorId,
      sentAt: 1,
      cpuCores: 4,
      cpuBusyPermille: 0,
      memTotalBytes: 2 ** 30,
      memAvailableBytes: 2 ** 30,
      nicCapacityBytesPerSecond: 125_000_000,
      nicBytesPerSecond: 0,
      senderSlots: 4,
      senderSlotsFree: 4,
    },
  });
  const run = (executorId: string, unitNo: number): UnitRun => ({
    kind: 'unit.run',
    taskId: 1,
    epoch: 2,
    unitNo,
    filteredListId: 'l_1',
    start: 0,
    end: 10,
    from: 0,
    executorId,
    realtime: false,
  });

  beforeAll(async () => {
    dir = await makeTempDir('herald-dispatcher-replan-');
    const lists = new ListRepository(dir.path);
    await writeRecipientListFile(
      lists.pathOf('l_1'),
      Uint32Array.from({ length: 10 }, (_, i) => i),
      ListFlags.SORTED | ListFlags.UNIQUE,
    );
    const endpoint = inprocEndpoint('dispatcher-replan');
    inbox = await createPull({ name: 'dispatcher', endpoint, highWaterMark: 64 });
    toDispatcher = await createPush({ name: 'to-dispatcher', endpoints: [endpoint], highWaterMark: 64 });
    dispatcher = startDispatcher({
      config: compileConfig({ dispatcher: { batchSize: 5 } }),
      inbox,
      toScheduler: { send: async (m) => void toScheduler.push(m), close() {} },
      toExecutor: new Map([
        ['e1', channel('e1')],
        ['e2', channel('e2')],
      ]),
      lists,
      filters: [],
      clock: { now: () => now },
      logger: noopLogger,
    });
  });

  afterAll(async () => {
    toDispatcher.close();
    inbox.close();
    await dispatcher.done;
    await dir.remove();
  });

  /** Sends an executor's report and waits until this dispatcher stamped it with the current clock. */
  const reportNow = async (executorId: string) => {
    await toDispatcher.send(report(executorId));
    await waitFor(() => dispatcher.loads().some((l) => l.report.executorId === executorId && l.receivedAt === now), {
      message: `the report of ${executorId} at ${now}`,
    });
  };

  it('streams to an executor that reports, and proposes a live executor for one that stopped', async () => {
    await reportNow('e1');
    await reportNow('e2');
    expect(dispatcher.loads()).toHaveLength(2);
    await toDispatcher.send(run('e1', 0));
    await waitFor(() => sent.get('e1')!.length === 2, { message: 'unit 0 streamed to e1 while it reports' });

    // e1 stops reporting; e2 goes on, heard steadily.
    for (let step = 0; step < 4; step++) {
      now += 1000;
      await reportNow('e2');
    }
    await toDispatcher.send(run('e1', 1));
    await waitFor(() => toScheduler.length === 1, { message: 'a unit.replan for unit 1' });
    expect(toScheduler).toEqual([{ kind: 'unit.replan', taskId: 1, epoch: 2, unitNo: 1, from: 'e1', to: 'e2' }]);

    await toDispatcher.send(run('e2', 1)); // the owner moved it
    await waitFor(() => sent.get('e2')!.length === 2, { message: 'unit 1 streamed to e2' });
    expect(sent.get('e1')!.map((m) => m.kind === 'unit.batch' && m.unitNo)).toEqual([0, 0]); // nothing of unit 1 went to the silent executor
  });

  it('streams to the executor named when no executor reports (nowhere better to go)', async () => {
    now += 10_000;
    await toDispatcher.send(run('e1', 2));
    await waitFor(() => sent.get('e1')!.length === 4, { message: 'unit 2 streamed to e1' });
    expect(toScheduler).toHaveLength(1);
  });

  it('streams to the executor named when the first report after a silence is another one (back from a partition)', async () => {
    // Heard nobody for 10 s (the test above); e2's report happens to arrive first, e1's is on its way.
    await reportNow('e2');
    await toDispatcher.send(run('e1', 3));
    await waitFor(() => sent.get('e1')!.length === 6, { message: 'unit 3 streamed to e1' });
    expect(toScheduler).toHaveLength(1); // no unit.replan: e1's silence was this dispatcher's own
  });
});
