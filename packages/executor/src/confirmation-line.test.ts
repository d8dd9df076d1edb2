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

  it('lets go of what is held back only when the caller is about to wait for a confirmation not settled yet', async () => {
    const started: string[] = [];
    let letGo = 0;
    const line = new ConfirmationLine(
      () => undefined,
      2,
      () => letGo++,
    );
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => held(started, name));
    await line.enqueue(key(0), a!.confirm);
    await line.enqueue(key(10), b!.confirm);
    a!.settle();
    await turn();
    // Full, but its oldest settled: no wait, so nothing is let go (a held record group keeps growing).
    await line.enqueue(key(20), c!.confirm);
    expect(letGo).toBe(0);
    // Full, and its oldest (b) unsettled: the caller waits, and what b may wait for is let go first.
    const handingD = line.enqueue(key(30), d!.confirm);
    expect(letGo).toBe(1);
    b!.settle();
    await handingD;
    c!.settle();
    d!.settle();
    await line.drained();
    expect(started).toEqual(['a', 'b', 'c', 'd']);
  });
});
