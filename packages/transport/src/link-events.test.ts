import { createPull, createPush, type PushLinkEvent } from './channels';

/** Polls `condition` until it holds; fails with `what` once the deadline passes. */
async function waitFor(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('PushOptions.onLink', () => {
  it('reports connected, then disconnected and refused retries once the peer stops listening', async () => {
    const pull = await createPull({ name: 'link-pull', endpoint: 'tcp://127.0.0.1:*', highWaterMark: 10 });
    const events: PushLinkEvent['type'][] = [];
    const push = await createPush({
      name: 'link-push',
      endpoints: [pull.endpoint],
      highWaterMark: 10,
      onLink: (event) => {
        expect(event.endpoint).toBe(pull.endpoint);
        events.push(event.type);
      },
    });
    try {
      await waitFor(() => events.includes('connected'), 'the connection');
      pull.close(); // its kernel closes the connection, and nothing listens at the address any more
      await waitFor(() => events.filter((e) => e === 'retrying').length >= 2, 'two retries after the disconnect');
      const after = events.slice(events.indexOf('disconnected'));
      expect(after[0]).toBe('disconnected');
      expect(after).not.toContain('connected');
    } finally {
      push.close();
      pull.close();
    }
  });

  it('keeps observing when the listener throws', async () => {
    const pull = await createPull({ name: 'link-pull-2', endpoint: 'tcp://127.0.0.1:*', highWaterMark: 10 });
    let calls = 0;
    const push = await createPush({
      name: 'link-push-2',
      endpoints: [pull.endpoint],
      highWaterMark: 10,
      onLink: () => {
        calls++;
        throw new Error('listener failure');
      },
    });
    try {
      await waitFor(() => calls >= 1, 'the first event');
      pull.close();
      await waitFor(() => calls >= 3, 'events after the throw');
    } finally {
      push.close();
      pull.close();
    }
  });
});
