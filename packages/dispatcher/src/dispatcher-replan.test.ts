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

  it('streams to an executor that reports, and proposes a live executor for one that stopped', async () => {
    await toDispatcher.send(report('e1'));
    await toDispatcher.send(report('e2'));
    await waitFor(() => dispatcher.loads().length === 2, { message: 'both reports kept' });
    await toDispatcher.send(run('e1', 0));
    await waitFor(() => sent.get('e1')!.length === 2, { message: 'unit 0 streamed to e1 while it reports' });

    now += 3001; // e1 stops reporting; e2 goes on
    await toDispatcher.send(report('e2'));
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
});
