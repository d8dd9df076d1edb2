import type { PullChannel } from './channels';
import type { Message } from './messages/types';
import { observeInbox } from './observe-inbox';

describe('observeInbox', () => {
  it('hands every message on, in order, after showing it to the observer, and closes the inbox it wraps', async () => {
    const messages: Message[] = [
      { kind: 'task.submitted', taskId: 1 },
      { kind: 'task.halt', taskId: 2, epoch: 3 },
    ];
    let closed = false;
    const inbox: PullChannel = {
      endpoint: 'inproc://x',
      malformed: 7,
      close: () => void (closed = true),
      async *messages() {
        yield* messages;
      },
    };
    const events: string[] = [];
    const observed = observeInbox(inbox, (m) => events.push(`seen ${m.kind}`));
    for await (const m of observed.messages()) events.push(`read ${m.kind}`);
    expect(events).toEqual(['seen task.submitted', 'read task.submitted', 'seen task.halt', 'read task.halt']);
    expect([observed.endpoint, observed.malformed]).toEqual(['inproc://x', 7]);
    observed.close();
    expect(closed).toBe(true);
  });
});
