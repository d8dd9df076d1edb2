import { compileConfig } from '@herald/core/config';
import { ListFlags } from '@herald/core/recipient-list';
import { ListRepository, writeRecipientListFile } from '@herald/audience';
import { makeTempDir, waitFor, type TempDir } from '@herald/testing';
import {
  createPull,
  encodeMessageAs,
  type Message,
  type PullChannel,
  type PushChannel,
  type UnitBatch,
  type UnitRun,
} from '@herald/transport';
import * as zmq from 'zeromq';
import { startDispatcher, type Dispatcher } from './dispatcher';

/**
 * A rolling upgrade's mixed-version pair: this build's dispatcher, its inbox
 * on tcp, and a scheduler of the previous build writing unit.run as version 1
 * (docs/operations.md, "Wire versions"). Its frames stream like this build's
 * own; one from before `realtime` existed streams to the normal inbox.
 */
class RecordingChannel implements PushChannel {
  readonly batches: UnitBatch[] = [];
  async send(message: Message): Promise<void> {
    if (message.kind === 'unit.batch') this.batches.push(message);
  }
  close(): void {}
  lastOf(unitNo: number): boolean {
    return this.batches.some((b) => b.unitNo === unitNo && b.last);
  }
}

const UINS = Uint32Array.from({ length: 200 }, (_, i) => 1000 + i);
const run = (unitNo: 0 | 1, realtime: boolean): UnitRun => ({
  kind: 'unit.run',
  taskId: 7,
  epoch: 1,
  unitNo,
  filteredListId: 'f_7',
  start: unitNo * 100,
  end: unitNo * 100 + 100,
  from: unitNo * 100,
  executorId: 'e1',
  realtime,
});

describe('a dispatcher of this build and a scheduler of the previous one', () => {
  let dir: TempDir;
  let inbox: PullChannel;
  let previousScheduler: zmq.Push;
  let normal: RecordingChannel;
  let realtime: RecordingChannel;
  let dispatcher: Dispatcher;

  beforeEach(async () => {
    dir = await makeTempDir('herald-mixed-version-');
    const lists = new ListRepository(dir.path);
    await writeRecipientListFile(lists.pathOf('f_7'), UINS, ListFlags.SORTED | ListFlags.UNIQUE);
    inbox = await createPull({ name: 'dispatcher', endpoint: 'tcp://127.0.0.1:*', highWaterMark: 64 });
    previousScheduler = new zmq.Push({ linger: 0 });
    previousScheduler.connect(inbox.endpoint);
    normal = new RecordingChannel();
    realtime = new RecordingChannel();
    dispatcher = startDispatcher({
      config: compileConfig({ dispatcher: { batchSize: 10 } }),
      inbox,
      toScheduler: { send: async () => undefined, close: () => undefined },
      toExecutor: new Map([['e1', normal]]),
      toRealtimeExecutor: new Map([['e1', realtime]]),
      lists,
      filters: [],
    });
  });

  afterEach(async () => {
    previousScheduler.close();
    inbox.close();
    await dispatcher.done;
    await dir.remove();
  });

  it('streams version 1 unit.run frames, with and without realtime, and drops none as malformed', async () => {
    const withRealtime = encodeMessageAs(run(1, true), 1);
    // The builds before realtime wrote the same frame without its last byte.
    const beforeRealtime = encodeMessageAs(run(0, false), 1).subarray(0, -1);
    expect([withRealtime[1], beforeRealtime[1]]).toEqual([1, 1]);
    await previousScheduler.send(beforeRealtime);
    await previousScheduler.send(withRealtime);

    await waitFor(() => normal.lastOf(0) && realtime.lastOf(1), { message: 'both units streamed' });
    expect(inbox.malformed).toBe(0);
    expect(normal.batches.map((b) => b.offset)).toEqual(Array.from({ length: 10 }, (_, i) => i * 10));
    expect(realtime.batches.map((b) => b.offset)).toEqual(Array.from({ length: 10 }, (_, i) => 100 + i * 10));
  });
});
