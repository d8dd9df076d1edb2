import type { Meter, OfflineStore } from '@herald/core/ports';
import { waitFor } from '@herald/testing';
import { watchOfflineStoreSize } from './offline-size';

describe('watchOfflineStoreSize', () => {
  const gauges: number[] = [];
  const meter: Meter = {
    counter: () => ({ inc() {} }),
    gauge: () => ({ set: (value) => void gauges.push(value) }),
    histogram: () => ({ observe() {} }),
  };

  it("sets the gauge from the store's estimate now and on every interval, until stopped", async () => {
    let bytes = 100;
    const store = { approximateBytes: async () => bytes } as unknown as OfflineStore;
    const watch = watchOfflineStoreSize(store, meter, { everyMs: 10 });
    await waitFor(() => gauges.includes(100), { message: 'first reading' });
    bytes = 250;
    await waitFor(() => gauges.includes(250), { message: 'a later reading' });
    watch.stop();
  });

  it('sets nothing for a store without an estimate', () => {
    gauges.length = 0;
    watchOfflineStoreSize({} as OfflineStore, meter, { everyMs: 10 }).stop();
    expect(gauges).toEqual([]);
  });
});
