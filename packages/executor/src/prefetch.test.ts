import { HeraldError, ValidationError } from '@herald/core';
import { Prefetch } from './prefetch';

/** Takes what is waiting now, without waiting for more. */
async function takeWaiting(prefetch: Prefetch<string>): Promise<string[]> {
  const taken: string[] = [];
  while (prefetch.size > 0) taken.push((await prefetch.take())!);
  return taken;
}

describe('Prefetch', () => {
  it('hands out the real-time lane first, each lane in the order it was put', async () => {
    const prefetch = new Prefetch<string>();
    const source = prefetch.source(10);
    prefetch.put(source, 'normal', 1, 'n1');
    prefetch.put(source, 'normal', 2, 'n2');
    prefetch.put(source, 'realtime', 3, 'r1');
    prefetch.put(source, 'normal', 1, 'n3');
    prefetch.put(source, 'realtime', 4, 'r2');
    expect(await takeWaiting(prefetch)).toEqual(['r1', 'r2', 'n1', 'n2', 'n3']);
  });

  it('keeps one key in one lane while it has messages waiting, so its messages never reorder', async () => {
    const prefetch = new Prefetch<string>();
    const source = prefetch.source(10);
    prefetch.put(source, 'normal', 7, 'a'); // e.g. the task could not be read yet: normal lane
    prefetch.put(source, 'normal', 8, 'x');
    prefetch.put(source, 'realtime', 7, 'b'); // known as real-time now, but 'a' still waits
    expect(await takeWaiting(prefetch)).toEqual(['a', 'x', 'b']);
    // Once nothing of key 7 waits, its next message goes where it asks.
    prefetch.put(source, 'normal', 8, 'y');
    prefetch.put(source, 'realtime', 7, 'c');
    expect(await takeWaiting(prefetch)).toEqual(['c', 'y']);
  });

  it('makes a taker wait for the next put', async () => {
    const prefetch = new Prefetch<string>();
    const source = prefetch.source(1);
    const next = prefetch.take();
    prefetch.put(source, 'normal', 1, 'n');
    await expect(next).resolves.toBe('n');
    expect(source.held).toBe(0);
  });

  it('gives a source room only below its capacity, and again once the worker took one of its messages', async () => {
    const prefetch = new Prefetch<string>();
    const source = prefetch.source(2);
    await expect(source.room()).resolves.toBe(true);
    prefetch.put(source, 'normal', 1, 'a');
    prefetch.put(source, 'normal', 1, 'b');
    let roomy: boolean | undefined;
    const room = source.room().then((open) => (roomy = open));
    await Promise.resolve();
    expect(roomy).toBeUndefined();
    expect(() => prefetch.put(source, 'normal', 1, 'c')).toThrow(HeraldError);
    await expect(prefetch.take()).resolves.toBe('a');
    await room;
    expect(roomy).toBe(true);
    expect(source.held).toBe(1);
  });

  it('bounds each source on its own: a full normal source leaves room for the real-time one', async () => {
    const prefetch = new Prefetch<string>();
    const normal = prefetch.source(1);
    const realtime = prefetch.source(1);
    prefetch.put(normal, 'normal', 1, 'n');
    await expect(realtime.room()).resolves.toBe(true);
    prefetch.put(realtime, 'realtime', 2, 'r');
    expect(await takeWaiting(prefetch)).toEqual(['r', 'n']);
  });

  it('on close abandons what waits, ends the taker and every wait for room, and drops later puts', async () => {
    const prefetch = new Prefetch<string>();
    const source = prefetch.source(1);
    prefetch.put(source, 'normal', 1, 'a');
    const room = source.room();
    expect(prefetch.close()).toBe(1);
    await expect(room).resolves.toBe(false);
    await expect(prefetch.take()).resolves.toBeUndefined();
    expect(prefetch.put(source, 'realtime', 2, 'b')).toBe(false);
    expect(prefetch.size).toBe(0);

    const idle = new Prefetch<string>();
    const waiting = idle.take();
    idle.close();
    await expect(waiting).resolves.toBeUndefined();
  });

  it('tells a paced worker when a real-time item waits, and hands those out alone', async () => {
    const prefetch = new Prefetch<string>();
    const source = prefetch.source(10);
    prefetch.put(source, 'normal', 1, 'n1');
    let woken = false;
    const waiting = prefetch.watchRealtime().ready.then(() => (woken = true));
    let cancelledWoken = false;
    prefetch.watchRealtime().cancel(); // a cancelled watch is never woken
    const cancelled = prefetch.watchRealtime();
    void cancelled.ready.then(() => (cancelledWoken = true));
    cancelled.cancel();
    await Promise.resolve();
    expect(woken).toBe(false); // a normal item does not count
    expect(prefetch.takeRealtime()).toBeUndefined();
    prefetch.put(source, 'realtime', 2, 'r1');
    await waiting;
    expect(cancelledWoken).toBe(false);
    await prefetch.watchRealtime().ready; // at once while one waits
    expect(prefetch.takeRealtime()).toBe('r1');
    expect(source.held).toBe(1); // taking it gave its room back
    expect(await takeWaiting(prefetch)).toEqual(['n1']);
    const atClose = prefetch.watchRealtime().ready;
    prefetch.close();
    await atClose;
    expect(prefetch.takeRealtime()).toBeUndefined();
  });

  it('refuses a capacity that is not a positive integer, a second taker, and a source of another prefetch', async () => {
    const prefetch = new Prefetch<string>();
    for (const capacity of [0, -1, 1.5, Number.NaN]) expect(() => prefetch.source(capacity)).toThrow(ValidationError);
    const waiting = prefetch.take();
    await expect(prefetch.take()).rejects.toMatchObject({ code: 'INTERNAL' });
    expect(() => prefetch.put(new Prefetch<string>().source(1), 'normal', 1, 'x')).toThrow(HeraldError);
    prefetch.close();
    await waiting;
  });
});
