import type { Message, PullChannel } from '@herald/transport';
import { watchInbox } from './drain';

/** An inbox the test feeds one message at a time. */
function fedInbox(): { inbox: PullChannel; feed(message: Message): void } {
  const queue: Message[] = [];
  let wake: (() => void) | undefined;
  return {
    feed(message) {
      queue.push(message);
      wake?.();
    },
    inbox: {
      endpoint: 'inproc://drain-test',
      malformed: 0,
      close() {},
      async *messages() {
        for (;;) {
          while (queue.length > 0) yield queue.shift()!;
          await new Promise<void>((resolve) => (wake = resolve));
        }
      },
    },
  };
}

const LOAD: Message = {
  kind: 'host.load',
  report: {
    executorId: 'e1',
    sentAt: 1,
    cpuCores: 1,
    cpuBusyPermille: 0,
    memTotalBytes: 1,
    memAvailableBytes: 1,
    nicCapacityBytesPerSecond: 1,
    nicBytesPerSecond: 0,
    senderSlots: 1,
    senderSlotsFree: 1,
  },
};

describe('watchInbox', () => {
  it('counts every message, but only work (not host.load reports) ends the quiet a drain waits for', async () => {
    let now = 0;
    const { inbox, feed } = fedInbox();
    const watched = watchInbox(inbox, () => now);
    const reader = watched.inbox.messages()[Symbol.asyncIterator]();
    const read = async (message: Message) => {
      feed(message);
      await reader.next();
    };

    now = 5_000;
    await read(LOAD);
    expect([watched.idleMs(), watched.received]).toEqual([5_000, 1]);
    await read({ kind: 'task.halt', taskId: 1, epoch: 1 });
    now = 5_400;
    await read(LOAD);
    expect([watched.idleMs(), watched.received]).toEqual([400, 3]);
  });
});
