import { runsOf } from './inbox-runs';

/** An inbox the test feeds by hand: `push` a message, `end` it, or `fail` it. */
function handInbox<T>() {
  const queue: T[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  let failure: Error | undefined;
  let reads = 0;
  async function* messages(): AsyncGenerator<T> {
    for (;;) {
      while (queue.length === 0 && !ended && failure === undefined) await new Promise<void>((r) => (wake = r));
      if (failure !== undefined) throw failure;
      if (queue.length === 0) return;
      reads++;
      yield queue.shift()!;
    }
  }
  return {
    messages,
    push: (...items: T[]) => (queue.push(...items), wake?.()),
    end: () => ((ended = true), wake?.()),
    fail: (error: Error) => ((failure = error), wake?.()),
    reads: () => reads,
  };
}

const turns = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('reading an inbox ahead of its consumer', () => {
  it('hands over one at a time to a consumer that keeps up, and what queued meanwhile to one that did not', async () => {
    const inbox = handInbox<number>();
    const runs = runsOf(inbox.messages(), 8);
    inbox.push(1);
    expect((await runs.next()).value).toEqual([1]);
    // While the consumer handles [1], three more arrive: its next step takes them all.
    inbox.push(2, 3, 4);
    await turns();
    expect((await runs.next()).value).toEqual([2, 3, 4]);
    inbox.end();
    expect((await runs.next()).done).toBe(true);
  });

  it('reads no more than max ahead, and goes on once the consumer takes them', async () => {
    const inbox = handInbox<number>();
    const runs = runsOf(inbox.messages(), 3);
    inbox.push(1, 2, 3, 4, 5, 6, 7);
    expect((await runs.next()).value).toEqual([1]);
    await turns();
    expect(inbox.reads()).toBe(4); // [1] taken, then three read ahead: the rest stays in the inbox
    expect((await runs.next()).value).toEqual([2, 3, 4]);
    await turns();
    expect((await runs.next()).value).toEqual([5, 6, 7]);
    inbox.end();
    expect((await runs.next()).done).toBe(true);
  });

  it('hands over what it read, then the inbox’s failure', async () => {
    const inbox = handInbox<number>();
    const runs = runsOf(inbox.messages(), 4);
    inbox.push(1);
    expect((await runs.next()).value).toEqual([1]);
    inbox.push(2);
    await turns();
    inbox.fail(new Error('socket gone'));
    await turns();
    expect((await runs.next()).value).toEqual([2]);
    await expect(runs.next()).rejects.toThrow('socket gone');
  });

  it('refuses a read-ahead that is not a positive integer', async () => {
    await expect(runsOf(handInbox<number>().messages(), 0).next()).rejects.toThrow('max must be an integer >= 1');
  });
});
