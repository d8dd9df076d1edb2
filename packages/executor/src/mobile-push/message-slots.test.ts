import { MessageSlots } from './message-slots';

describe('MessageSlots', () => {
  it('keeps at most `size` sends running across callers, serves waiters in order, and frees a slot on failure', async () => {
    const slots = new MessageSlots(2);
    let running = 0;
    let most = 0;
    const started: number[] = [];
    const release: (() => void)[] = [];
    const send = (n: number, fail = false) =>
      slots.run(async () => {
        started.push(n);
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
        if (fail) throw new Error(`send ${n} failed`);
        return n;
      });
    const sends = [send(1, true), send(2), send(3), send(4), send(5)];
    await Promise.resolve();
    expect(started).toEqual([1, 2]);
    // Release whatever is running, one at a time, until every send is done.
    const settled = Promise.allSettled(sends);
    while (started.length < 5 || release.length > 0) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      release.shift()?.();
    }
    const outcomes = await settled;
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value : 'failed'))).toEqual(['failed', 2, 3, 4, 5]);
    expect(started).toEqual([1, 2, 3, 4, 5]);
    expect(most).toBe(2);
  });
});
