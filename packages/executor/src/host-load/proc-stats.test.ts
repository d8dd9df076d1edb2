import { cpus, totalmem } from 'node:os';
import { isHeraldError } from '@herald/core';
import { parseMeminfo, parseNetDev, parseStat, readProcCounters } from './proc-stats';

const STAT = `cpu  186018 79 39237 149115 493 0 1327 77 0 0
cpu0 94125 50 19100 74196 99 0 578 35 0 0
cpu1 91892 29 20137 74918 393 0 748 42 0 0
intr 5347978 0 0
ctxt 30270515
`;
const MEMINFO = `MemTotal:       24684092 kB
MemFree:         1000000 kB
MemAvailable:   13940752 kB
`;
const NET_DEV = `Inter-|   Receive                                                |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo: 866758429 2122686    0    0    0     0          0         0 866758429 2122686    0    0    0     0       0          0
  ifb0:     500       0    0    0    0     0          0         0      700       0    0    0    0     0       0          0
  eth0: 394346033   10979    0    0    0     0          0         0  1536447    9214    0    0    0     0       0          0
  eth1:      10       1    0    0    0     0          0         0       20       1    0    0    0     0       0          0
`;

function unavailable(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (isHeraldError(error)) return `${error.code} ${error.message}`;
    throw error;
  }
  throw new Error('expected a HeraldError');
}

describe('/proc parsers', () => {
  it('reads the aggregate CPU ticks (busy = all but idle and iowait) and counts the cpuN lines', () => {
    const all = 186018 + 79 + 39237 + 149115 + 493 + 0 + 1327 + 77;
    expect(parseStat(STAT)).toEqual({ cores: 2, cpuTotalTicks: all, cpuBusyTicks: all - 149115 - 493 });
  });

  it('reads MemTotal and MemAvailable in bytes', () => {
    expect(parseMeminfo(MEMINFO)).toEqual({ memTotalBytes: 24684092 * 1024, memAvailableBytes: 13940752 * 1024 });
  });

  it('sums received and sent bytes over the interfaces that leave the host (not lo, not ifb)', () => {
    expect(parseNetDev(NET_DEV)).toBe(394346033 + 1536447 + 10 + 20);
  });

  it('refuses files it cannot read with a retriable UNAVAILABLE', () => {
    expect(unavailable(() => parseStat('intr 1 2 3\n'))).toBe('UNAVAILABLE /proc/stat has no aggregate cpu line');
    expect(unavailable(() => parseStat('cpu  1 2 x 4\n'))).toMatch(/^UNAVAILABLE \/proc\/stat cpu line is not numbers/);
    expect(unavailable(() => parseMeminfo('MemTotal: 5 kB\n'))).toBe('UNAVAILABLE /proc/meminfo has no MemAvailable');
  });
});

describe('readProcCounters on this host', () => {
  it('agrees with what Node reads of the same kernel', async () => {
    const counters = await readProcCounters();
    expect(counters.cores).toBe(cpus().length);
    expect(counters.memTotalBytes).toBe(totalmem());
    expect(counters.memAvailableBytes).toBeGreaterThan(0);
    expect(counters.memAvailableBytes).toBeLessThanOrEqual(counters.memTotalBytes);
    expect(counters.cpuBusyTicks).toBeGreaterThan(0);
    expect(counters.cpuBusyTicks).toBeLessThan(counters.cpuTotalTicks);
    expect(Number.isSafeInteger(counters.nicBytes) && counters.nicBytes >= 0).toBe(true);
    const later = await readProcCounters();
    expect(later.cpuTotalTicks).toBeGreaterThanOrEqual(counters.cpuTotalTicks);
  });
});
