import { ConfirmationLine } from './confirmation-line';

/** A confirmation the test settles by hand, recording when it started. */
function held(started: string[], name: string) {
  let settle!: (error?: Error) => void;
  const done = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
  return {
    confirm: () => {
      started.push(name);
      return done;
    },
    settle,
  };
}

const key = (offset: number) => ({ taskId: 1, unitNo: 0, offset });
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ConfirmationLine', () => {
  it('starts each confirmation once the one before settled, in the order handed, and lets the caller go on', async () => {
    const started: string[] = [];
    const line = new ConfirmationLine(() => undefined);
    const a = held(started, 'a');
    const b = held(started, 'b');
    const c = held(started, 'c');
    await line.enqueue(key(0), a.confirm); // nothing before it: the caller goes on at once
    expect(started).toEqual(['a']);
    let bHanded = false;
    const handingB = line.enqueue(key(10), b.confirm).then(() => (bHanded = true));
    await turn();
    // b waits for a, and so does its caller: at most one confirmation beside the batch in hand.
    expect(started).toEqual(['a']);
    expect(bHanded).toBe(false);
    a.settle();
    await handingB;
    expect(started).toEqual(['a', 'b']);
    const handingC = line.enqueue(key(20), c.confirm);
    b.settle();
    await handingC;
    expect(started).toEqual(['a', 'b', 'c']);
    c.settle();
    await line.drained();
  });

  it('with depth 2, lets the caller go on while two are unsettled, and no more', async () => {
    const started: string[] = [];
    const line = new ConfirmationLine(() => undefined, 2);
    const [a, b, c] = ['a', 'b', 'c'].map((name) => held(started, name));
    await line.enqueue(key(0), a!.confirm);
    await line.enqueue(key(10), b!.confirm); // a unsettled, b waiting for it: two, the caller goes on
    expect(started).toEqual(['a']);
    let cHanded = false;
    const handingC = line.enqueue(key(20), c!.confirm).then(() => (cHanded = true));
    await turn();
    expect(cHanded).toBe(false); // three unsettled: the caller waits for the oldest
    a!.settle();
    await handingC;
    expect(started).toEqual(['a', 'b']);
    b!.settle();
    c!.settle();
    await line.drained();
    expect(started).toEqual(['a', 'b', 'c']);
    expect(() => new ConfirmationLine(() => undefined, 0)).toThrow(RangeError);
  });

  it('hands a failed confirmation to its handler and goes on with the next', async () => {
    const started: string[] = [];
    const failed: { offset: number; error: string }[] = [];
    const line = new ConfirmationLine((batch, error) => failed.push({ offset: batch.offset, error: String(error) }));
    const a = held(started, 'a');
    const b = held(started, 'b');
    await line.enqueue(key(0), a.confirm);
    a.settle(new Error('put failed'));
    await line.enqueue(key(10), b.confirm);
    expect(failed).toEqual([{ offset: 0, error: 'Error: put failed' }]);
    expect(started).toEqual(['a', 'b']);
    b.settle();
    await line.drained();
    expect(failed).toHaveLength(1);
  });

  it('settledFor waits only for the same batch in flight; drained for the last one', async () => {
    const started: string[] = [];
    const line = new ConfirmationLine(() => undefined);
    const a = held(started, 'a');
    await line.enqueue(key(0), a.confirm);
    await line.settledFor(key(10)); // another batch: no wait
    let settled = false;
    const same = line.settledFor(key(0)).then(() => (settled = true));
    let drained = false;
    const all = line.drained().then(() => (drained = true));
    await turn();
    expect([settled, drained]).toEqual([false, false]);
    a.settle();
    await Promise.all([same, all]);
    expect([settled, drained]).toEqual([true, true]);
  });
});
