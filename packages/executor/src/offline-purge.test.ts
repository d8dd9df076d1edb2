import type { Meter, OfflinePurge, OfflineStore } from '@herald/core/ports';
import { waitFor } from '@herald/testing';
import { startOfflinePurge } from './offline-purge';

describe('startOfflinePurge', () => {
  let counted = 0;
  const meter: Meter = {
    counter: () => ({ inc: (_labels, value = 1) => void (counted += value) }),
    gauge: () => ({ set() {} }),
    histogram: () => ({ observe() {} }),
  };
  beforeEach(() => (counted = 0));

  /** A store whose purge answers `entries` a call and records each call's arguments; `hold` keeps calls open. */
  function fakeStore(entries: number) {
    const calls: { now: number; maxRecords: number }[] = [];
    let release: (() => void) | undefined;
    let held: Promise<void> | undefined;
    const store = {
      async purgeExpired(now: number, maxRecords: number): Promise<OfflinePurge> {
        calls.push({ now, maxRecords });
        await held;
        return { entries, records: 1, done: false };
      },
    } as unknown as OfflineStore;
    return {
      store,
      calls,
      hold: () => {
        held = new Promise((resolve) => (release = resolve));
      },
      release: () => release?.(),
    };
  }

  it('sweeps on every interval at the clock of the moment with the bound it was given, counting purged entries', async () => {
    const fake = fakeStore(7);
    const purge = startOfflinePurge(fake.store, meter, { intervalMs: 5, maxRecords: 300, clock: { now: () => 1234 } });
    await waitFor(() => fake.calls.length >= 3, { message: 'three sweeps' });
    await purge.stop();
    expect(fake.calls.every((c) => c.now === 1234 && c.maxRecords === 300)).toBe(true);
    expect(counted).toBe(7 * fake.calls.length);
  });

  it('never runs two sweeps at once: a sweep asked for during one is that one', async () => {
    const fake = fakeStore(1);
    fake.hold();
    const purge = startOfflinePurge(fake.store, meter, { intervalMs: 0, maxRecords: 10 });
    const first = purge.sweep();
    const second = purge.sweep();
    expect(second).toBe(first);
    fake.release();
    expect(await first).toBe(1);
    expect(fake.calls).toHaveLength(1);
    await purge.stop();
  });

  it('with intervalMs 0 sweeps only when asked', async () => {
    const fake = fakeStore(2);
    const purge = startOfflinePurge(fake.store, meter, { intervalMs: 0, maxRecords: 10 });
    expect(fake.calls).toHaveLength(0);
    expect(await purge.sweep()).toBe(2);
    await purge.stop();
    expect(fake.calls).toHaveLength(1);
    expect(counted).toBe(2);
  });
});
