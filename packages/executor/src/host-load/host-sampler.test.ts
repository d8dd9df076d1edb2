import { createHostSampler } from './host-sampler';
import type { ProcCounters } from './proc-stats';

const base: ProcCounters = {
  cores: 4,
  cpuTotalTicks: 1000,
  cpuBusyTicks: 400,
  memTotalBytes: 8000,
  memAvailableBytes: 6000,
  nicBytes: 10_000,
};

function sampler(readings: Partial<ProcCounters>[], times: number[], cpuWindowMs = 0) {
  let i = 0;
  let t = 0;
  return createHostSampler(
    async () => ({ ...base, ...readings[i++] }),
    () => times[t++]!,
    cpuWindowMs,
  );
}

describe('createHostSampler', () => {
  it('reports rates of 0 on its first reading, then the busy share and NIC rate since the previous one', async () => {
    const sample = sampler(
      [
        {},
        { cpuTotalTicks: 1200, cpuBusyTicks: 550, nicBytes: 15_000 },
        { cpuTotalTicks: 1400, cpuBusyTicks: 550, nicBytes: 15_000 },
      ],
      [0, 2000, 3000],
    );
    expect(await sample()).toEqual({
      cpuCores: 4,
      cpuBusyPermille: 0,
      memTotalBytes: 8000,
      memAvailableBytes: 6000,
      nicBytesPerSecond: 0,
    });
    expect(await sample()).toMatchObject({ cpuBusyPermille: 750, nicBytesPerSecond: 2500 });
    expect(await sample()).toMatchObject({ cpuBusyPermille: 0, nicBytesPerSecond: 0 });
  });

  it('takes the CPU share over its window: one idle tick in a busy interval does not read as spare CPU', async () => {
    // A saturated 2-core host read every 300 ms (60 ticks a reading); one reading has a single idle tick.
    const busyTicks = [0, 60, 120, 180, 240, 299, 359, 419, 479, 539, 599];
    const readings = busyTicks.map((b, i) => ({ cpuTotalTicks: 1000 + i * 60, cpuBusyTicks: 400 + b }));
    const times = busyTicks.map((_, i) => i * 300);
    const perInterval = sampler(readings, times, 0);
    const perWindow = sampler(readings, times, 1500);
    const shares: [number, number][] = [];
    for (let i = 0; i < readings.length; i++)
      shares.push([(await perInterval()).cpuBusyPermille, (await perWindow()).cpuBusyPermille]);
    // The interval holding the idle tick: 983 read alone, 997 over the last 1.5 s (5 intervals).
    expect(shares[5]).toEqual([983, 997]);
    // Past the window the tick is forgotten.
    expect(shares[10]).toEqual([1000, 1000]);
    expect(shares.slice(6, 10).every(([, windowed]) => windowed === 997)).toBe(true);
  });

  it('counts a counter that went back as no traffic, and keeps available memory within the total', async () => {
    const sample = sampler([{}, { nicBytes: 5, memAvailableBytes: 9000 }], [0, 1000]);
    await sample();
    expect(await sample()).toMatchObject({ nicBytesPerSecond: 0, memAvailableBytes: 8000 });
  });
});
