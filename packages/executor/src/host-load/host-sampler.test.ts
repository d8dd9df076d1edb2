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

function sampler(readings: Partial<ProcCounters>[], times: number[]) {
  let i = 0;
  let t = 0;
  return createHostSampler(
    async () => ({ ...base, ...readings[i++] }),
    () => times[t++]!,
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

  it('counts a counter that went back as no traffic, and keeps available memory within the total', async () => {
    const sample = sampler([{}, { nicBytes: 5, memAvailableBytes: 9000 }], [0, 1000]);
    await sample();
    expect(await sample()).toMatchObject({ nicBytesPerSecond: 0, memAvailableBytes: 8000 });
  });
});
