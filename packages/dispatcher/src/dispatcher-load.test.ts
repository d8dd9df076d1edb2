import { compileConfig } from '@herald/core/config';
import { ListFlags } from '@herald/core/recipient-list';
import { noopLogger } from '@herald/core/ports';
import type { HostLoad } from '@herald/core/dispatch';
import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import {
  createPull,
  createPush,
  inprocEndpoint,
  type Message,
  type PullChannel,
  type PushChannel,
} from '@herald/transport';
import { startDispatcher, type Dispatcher } from './dispatcher';

/** host.load reports arrive in the dispatcher's inbox and decide where the next task's units go. */
describe("dispatcher: units planned on the executors' load reports", () => {
  let dir: TempDir;
  let inbox: PullChannel;
  let toDispatcher: PushChannel;
  let dispatcher: Dispatcher;
  let now = 5_000;
  const results: Message[] = [];
  const channel: PushChannel = { send: async () => undefined, close() {} };

  const report = (executorId: string, over: Partial<HostLoad> = {}): Message => ({
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
      ...over,
    },
  });

  beforeAll(async () => {
    dir = await makeTempDir('herald-dispatcher-load-');
    const lists = new ListRepository(dir.path);
    await writeRecipientListFile(
      lists.pathOf('l_1'),
      Uint32Array.from({ length: 10 }, (_, i) => i),
      ListFlags.SORTED | ListFlags.UNIQUE,
    );
    const endpoint = inprocEndpoint('dispatcher-load');
    inbox = await createPull({ name: 'dispatcher', endpoint, highWaterMark: 64 });
    toDispatcher = await createPush({ name: 'to-dispatcher', endpoints: [endpoint], highWaterMark: 64 });
    dispatcher = startDispatcher({
      config: compileConfig({ dispatcher: { unitSize: 4 } }),
      inbox,
      toScheduler: { send: async (m) => void results.push(m), close() {} },
      toExecutor: new Map([
        ['e1', channel],
        ['e2', channel],
        ['e3', channel],
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

  it('keeps the latest report per executor it links to, and plans the task on the one that fits', async () => {
    await toDispatcher.send(report('e1', { senderSlotsFree: 0 }));
    await toDispatcher.send(report('e2', { cpuBusyPermille: 999 }));
    await toDispatcher.send(report('e2', { cpuBusyPermille: 100 })); // replaces the one before
    await toDispatcher.send(report('e3', { cpuBusyPermille: 800 }));
    await toDispatcher.send(report('elsewhere'));
    await waitFor(
      () => dispatcher.loads().length === 3 && dispatcher.loads().some((l) => l.report.executorId === 'e3'),
      { message: 'three reports kept' },
    );
    expect(dispatcher.loads().map((l) => [l.report.executorId, l.report.cpuBusyPermille, l.receivedAt])).toEqual([
      ['e1', 0, 5000],
      ['e2', 100, 5000],
      ['e3', 800, 5000],
    ]);

    await toDispatcher.send({
      kind: 'preprocess.request',
      taskId: 1,
      epoch: 1,
      listId: 'l_1',
      accountId: 'acme',
      contentCrc: 1,
      speed: 0,
    });
    await waitFor(() => results.length === 1, { timeoutMs: 10_000, message: 'task 1 pre-processed' });
    const result = results[0]!;
    if (result.kind !== 'preprocess.result' || !result.ok) throw new Error(`unexpected ${JSON.stringify(result)}`);
    expect(result.units).toEqual([
      { start: 0, end: 4, executorId: 'e2' },
      { start: 4, end: 8, executorId: 'e2' },
      { start: 8, end: 10, executorId: 'e2' },
    ]);
  });

  it('plans a task that asks for a speed for that speed: more than one host can carry spreads it over those with spare capacity', async () => {
    await toDispatcher.send({
      kind: 'preprocess.request',
      taskId: 3,
      epoch: 1,
      listId: 'l_1',
      accountId: 'acme',
      contentCrc: 1,
      speed: 100_000_000,
    });
    await waitFor(() => results.some((r) => r.kind === 'preprocess.result' && r.taskId === 3), {
      timeoutMs: 10_000,
      message: 'task 3 pre-processed',
    });
    const result = results.find((r) => r.kind === 'preprocess.result' && r.taskId === 3)!;
    if (result.kind !== 'preprocess.result' || !result.ok) throw new Error(`unexpected ${JSON.stringify(result)}`);
    // The same reports put a task without a speed on e2 alone (above); e1 has no free slot.
    expect(new Set(result.units.map((u) => u.executorId))).toEqual(new Set(['e2', 'e3']));
  });

  it('stops planning on reports once they are older than load.maxReportAgeMs', async () => {
    now += 3001;
    await toDispatcher.send({
      kind: 'preprocess.request',
      taskId: 2,
      epoch: 1,
      listId: 'l_1',
      accountId: 'acme',
      contentCrc: 1,
      speed: 0,
    });
    await waitFor(() => results.some((r) => r.kind === 'preprocess.result' && r.taskId === 2), {
      timeoutMs: 10_000,
      message: 'task 2 pre-processed',
    });
    const result = results.find((r) => r.kind === 'preprocess.result' && r.taskId === 2)!;
    if (result.kind !== 'preprocess.result' || !result.ok) throw new Error(`unexpected ${JSON.stringify(result)}`);
    expect(new Set(result.units.map((u) => u.executorId))).toEqual(new Set(['e1', 'e2', 'e3'])); // the even fallback
  });
});
