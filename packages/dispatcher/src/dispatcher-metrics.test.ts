import { compileConfig } from '@herald/core/config';
import type { Meter } from '@herald/core/ports';
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
import type { RecipientFilter } from './filters/filter';

/**
 * What pre-processing meters: recipients read, removals by filter reason,
 * its duration, and failures by error code (the code the scheduler is told).
 */
describe('dispatcher metrics', () => {
  let dir: TempDir;
  let inbox: PullChannel;
  let toDispatcher: PushChannel;
  let dispatcher: Dispatcher;
  const results: Message[] = [];
  const counters = new Map<string, number>();
  const observed: string[] = [];
  const meter: Meter = {
    counter: (name) => ({
      inc: (labels, value = 1) =>
        void counters.set(
          `${name}${labels ? JSON.stringify(labels) : ''}`,
          (counters.get(`${name}${labels ? JSON.stringify(labels) : ''}`) ?? 0) + value,
        ),
    }),
    gauge: () => ({ set() {} }),
    histogram: (name) => ({
      observe: (_seconds, labels) => void observed.push(labels === undefined ? name : `${name}{${labels.stage}}`),
    }),
  };
  /** Removes even uins, as a blacklist would. */
  const evens: RecipientFilter = {
    name: 'evens',
    reason: 'blacklisted',
    apply: async (uins) => uins.filter((uin) => uin % 2 === 1),
  };

  beforeAll(async () => {
    dir = await makeTempDir('herald-dispatcher-metrics-');
    const lists = new ListRepository(dir.path);
    await writeRecipientListFile(lists.pathOf('l_1'), Uint32Array.of(9, 4, 7, 10, 1), 0);
    const endpoint = inprocEndpoint('dispatcher-metrics');
    inbox = await createPull({ name: 'dispatcher', endpoint, highWaterMark: 64 });
    toDispatcher = await createPush({ name: 'to-dispatcher', endpoints: [endpoint], highWaterMark: 64 });
    dispatcher = startDispatcher({
      config: compileConfig({}),
      inbox,
      toScheduler: { send: async (message) => void results.push(message), close: () => undefined },
      toExecutor: new Map([['e1', { send: async () => undefined, close: () => undefined }]]),
      lists,
      filters: [evens],
      meter,
    });
  });

  afterAll(async () => {
    toDispatcher.close();
    inbox.close();
    await dispatcher.done;
    await dir.remove();
  });

  it('counts recipients pre-processed, removals by reason and failures by code', async () => {
    await toDispatcher.send({
      kind: 'preprocess.request',
      taskId: 1,
      epoch: 1,
      listId: 'l_1',
      accountId: 'acme',
      contentCrc: 1,
      speed: 0,
    });
    await toDispatcher.send({
      kind: 'preprocess.request',
      taskId: 2,
      epoch: 1,
      listId: 'l_missing',
      accountId: 'acme',
      contentCrc: 1,
      speed: 0,
    });
    await waitFor(() => results.length === 2, { message: 'both results sent' });
    expect(results[0]).toMatchObject({ ok: true });
    expect(counters.get('herald_dispatcher_preprocessed_recipients_total')).toBe(5);
    expect(counters.get('herald_dispatcher_filtered_recipients_total{"reason":"blacklisted"}')).toBe(2);
    // Each stage of the one that succeeded, in order, then the whole; the missing list failed before any ended.
    expect(observed).toEqual([
      ...['load', 'filter', 'plan', 'write'].map((stage) => `herald_dispatcher_preprocess_stage_seconds{${stage}}`),
      'herald_dispatcher_preprocess_seconds',
    ]);
    const failed = results[1]!;
    if (failed.kind !== 'preprocess.result' || failed.ok) throw new Error('the missing list did not fail');
    expect(counters.get(`herald_dispatcher_errors_total{"code":"${failed.errorCode}"}`)).toBe(1);
  });
});
