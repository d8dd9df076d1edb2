import { compileConfig } from '@herald/core/config';
import { ListFlags } from '@herald/core/recipient-list';
import { noopLogger, noopMeter } from '@herald/core/ports';
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

/**
 * Pre-processing runs one request at a time on a promise chain: a result
 * that cannot be sent must not stop the requests behind it (before the fix,
 * one failed send left the chain rejected and every later request was
 * skipped without a word).
 */
describe('dispatcher pre-processing results', () => {
  let dir: TempDir;
  let inbox: PullChannel;
  let toDispatcher: PushChannel;
  let dispatcher: Dispatcher;
  const results: Message[] = [];
  let failNext = 1;

  beforeAll(async () => {
    dir = await makeTempDir('herald-dispatcher-preprocess-');
    const lists = new ListRepository(dir.path);
    await writeRecipientListFile(lists.pathOf('l_1'), Uint32Array.of(5, 6, 7), ListFlags.SORTED | ListFlags.UNIQUE);
    const endpoint = inprocEndpoint('dispatcher-preprocess');
    inbox = await createPull({ name: 'dispatcher', endpoint, highWaterMark: 64 });
    toDispatcher = await createPush({ name: 'scheduler-to-dispatcher', endpoints: [endpoint], highWaterMark: 64 });
    const toScheduler: PushChannel = {
      async send(message) {
        if (failNext > 0) {
          failNext--;
          throw new Error('push channel dispatcher->scheduler is closed');
        }
        results.push(message);
      },
      close() {},
    };
    dispatcher = startDispatcher({
      config: compileConfig({}),
      inbox,
      toScheduler,
      toExecutor: new Map([['e1', { send: async () => undefined, close() {} }]]),
      lists,
      filters: [],
      logger: noopLogger,
      meter: noopMeter,
    });
  });

  afterAll(async () => {
    toDispatcher.close();
    inbox.close();
    await dispatcher.done;
    await dir.remove();
  });

  it('answers the next request after a result could not be sent', async () => {
    const request = (taskId: number): Message => ({
      kind: 'preprocess.request',
      taskId,
      epoch: 1,
      listId: 'l_1',
      accountId: 'acme',
      contentCrc: 1,
      speed: 0,
    });
    await toDispatcher.send(request(1));
    await toDispatcher.send(request(2));
    await waitFor(() => results.some((r) => r.kind === 'preprocess.result' && r.taskId === 2), {
      timeoutMs: 10_000,
      message: 'task 2 was pre-processed',
    });
    expect(results.map((r) => (r.kind === 'preprocess.result' ? r.taskId : -1))).toEqual([2]);
  });
});
