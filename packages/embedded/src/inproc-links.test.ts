import { compileConfig } from '@herald/core/config';
import { noopLogger } from '@herald/core/ports';
import { Resources } from '@herald/compose';
import { createPromMeter } from '@herald/metrics';
import type { Message, PullChannel } from '@herald/transport';
import { InprocLinks } from './inproc-links';

/** The next message the inbox delivers. */
async function next(inbox: PullChannel): Promise<Message> {
  for await (const message of inbox.messages()) return message;
  throw new Error('the inbox closed before a message arrived');
}

describe('InprocLinks', () => {
  const config = compileConfig({ executor: { ids: ['executor-1', 'executor-2'] } });
  let links: InprocLinks;
  const scope = new Resources();

  beforeEach(async () => {
    links = await InprocLinks.open(config, noopLogger, createPromMeter({ defaultMetrics: false }));
  });

  afterEach(() => links.close());

  it('connects each sender to the inbox it names', async () => {
    const dispatcher = await links.dispatcher()(scope);
    const second = await links.executor('executor-2')(scope);
    const scheduler = await links.scheduler()(scope);
    await dispatcher.toExecutor.get('executor-2')!.send({ kind: 'task.submitted', taskId: 1 });
    await expect(next(second.inbox)).resolves.toEqual({ kind: 'task.submitted', taskId: 1 });
    await second.toScheduler.send({ kind: 'task.submitted', taskId: 2 });
    await expect(next(scheduler.inbox)).resolves.toEqual({ kind: 'task.submitted', taskId: 2 });
    await dispatcher.toScheduler.send({ kind: 'task.submitted', taskId: 3 });
    await expect(next(scheduler.controlInbox!)).resolves.toEqual({ kind: 'task.submitted', taskId: 3 });
  });

  it("closes one tier's sockets and leaves the others' open", async () => {
    const first = await links.executor('executor-1')(scope);
    const dispatcher = await links.dispatcher()(scope);
    first.close();
    await expect(first.toScheduler.send({ kind: 'task.submitted', taskId: 1 })).rejects.toThrow('closed');
    await expect(next(first.inbox)).rejects.toThrow('closed before');
    const second = await links.executor('executor-2')(scope);
    await second.toDispatchers.send({ kind: 'task.submitted', taskId: 4 });
    await expect(next(dispatcher.inbox)).resolves.toEqual({ kind: 'task.submitted', taskId: 4 });
  });
});
