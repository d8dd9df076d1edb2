import type { BusEvent, EventBus } from '@herald/core/ports';
import { GroupedPublisher } from './grouped-publisher';

const event = (n: number): BusEvent => ({ key: 'k', value: { n }, timestamp: 1_700_000_000_000 + n });

/** A bus whose publish calls wait until the test lets them finish, one by one. */
function heldBus() {
  const calls: { topic: string; ns: number[]; finish: (error?: Error) => void }[] = [];
  let active = 0;
  let overlapped = false;
  const bus: Pick<EventBus, 'publish'> = {
    publish(topic, events) {
      active++;
      if (active > 1) overlapped = true;
      return new Promise<void>((resolve, reject) => {
        calls.push({
          topic,
          ns: events.map((e) => (e.value as { n: number }).n),
          finish: (error) => {
            active--;
            if (error === undefined) resolve();
            else reject(error);
          },
        });
      });
    },
  };
  return { bus, calls, overlapped: () => overlapped };
}

/** Lets the publisher's microtasks run (a group's call starts once the call before it settled). */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('GroupedPublisher', () => {
  it('sends a lone event at once, and the events handed during a call together in the next', async () => {
    const { bus, calls, overlapped } = heldBus();
    const publisher = new GroupedPublisher(bus, 16);
    const first = publisher.publish('reports', [event(1)]);
    await turn();
    expect(calls.map((c) => c.ns)).toEqual([[1]]);
    const later = [2, 3, 4].map((n) => publisher.publish('reports', [event(n)]));
    await turn();
    expect(calls).toHaveLength(1);
    calls[0]!.finish();
    await first;
    await turn();
    expect(calls.map((c) => c.ns)).toEqual([[1], [2, 3, 4]]);
    calls[1]!.finish();
    await Promise.all(later);
    expect(overlapped()).toBe(false);
  });

  it('opens a new group beyond maxEvents or for another topic, keeping the order of the calls', async () => {
    const { bus, calls } = heldBus();
    const publisher = new GroupedPublisher(bus, 2);
    const all = [
      publisher.publish('a', [event(1)]),
      publisher.publish('a', [event(2)]),
      publisher.publish('a', [event(3)]),
      publisher.publish('b', [event(4)]),
      publisher.publish('b', [event(5)]),
    ];
    for (let i = 0; i < 3; i++) {
      await turn();
      calls[i]!.finish();
    }
    await Promise.all(all);
    expect(calls.map((c) => [c.topic, c.ns])).toEqual([
      ['a', [1, 2]],
      ['a', [3]],
      ['b', [4, 5]],
    ]);
  });

  it('fails every event of a failed call with its error, and goes on with the next call', async () => {
    const { bus, calls } = heldBus();
    const publisher = new GroupedPublisher(bus, 16);
    const first = publisher.publish('reports', [event(1)]);
    const second = publisher.publish('reports', [event(2)]);
    await turn();
    const third = publisher.publish('reports', [event(3)]);
    calls[0]!.finish(new Error('broker down'));
    await expect(first).rejects.toThrow('broker down');
    await expect(second).rejects.toThrow('broker down');
    await turn();
    expect(calls.map((c) => c.ns)).toEqual([[1, 2], [3]]);
    calls[1]!.finish();
    await expect(third).resolves.toBeUndefined();
  });

  it('resolves an empty publish without a call, and refuses a bound below one', async () => {
    const { bus, calls } = heldBus();
    await new GroupedPublisher(bus, 1).publish('reports', []);
    expect(calls).toHaveLength(0);
    expect(() => new GroupedPublisher(bus, 0)).toThrow('maxEvents must be an integer >= 1, not 0');
  });
});
