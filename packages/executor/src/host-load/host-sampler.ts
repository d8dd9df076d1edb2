import type { HostLoad } from '@herald/core/dispatch';
import type { ProcCounters } from './proc-stats';

/** The host's part of a load report: what changes between two readings of its counters. */
export type HostSample = Pick<
  HostLoad,
  'cpuCores' | 'cpuBusyPermille' | 'memTotalBytes' | 'memAvailableBytes' | 'nicBytesPerSecond'
>;

/**
 * Turns counter readings into rates: CPU busy share and NIC bytes per second
 * over the time since the previous reading. The first reading has none before
 * it, so it reports rates of 0 (one interval of optimism, at start only).
 */
export function createHostSampler(
  read: () => Promise<ProcCounters>,
  now: () => number = () => performance.now(),
): () => Promise<HostSample> {
  let previous: { counters: ProcCounters; at: number } | undefined;
  return async () => {
    const counters = await read();
    const at = now();
    const before = previous;
    previous = { counters, at };
    const ticks = before === undefined ? 0 : counters.cpuTotalTicks - before.counters.cpuTotalTicks;
    const busy = before === undefined ? 0 : counters.cpuBusyTicks - before.counters.cpuBusyTicks;
    const seconds = before === undefined ? 0 : (at - before.at) / 1000;
    const nic = before === undefined ? 0 : counters.nicBytes - before.counters.nicBytes;
    return {
      cpuCores: counters.cores,
      cpuBusyPermille: ticks > 0 ? clamp(Math.round((busy * 1000) / ticks), 0, 1000) : 0,
      memTotalBytes: counters.memTotalBytes,
      memAvailableBytes: Math.min(counters.memAvailableBytes, counters.memTotalBytes),
      // A counter that went back (an interface gone, a wrap) counts as no traffic for that interval.
      nicBytesPerSecond: seconds > 0 && nic > 0 ? Math.round(nic / seconds) : 0,
    };
  };
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(high, Math.max(low, value));
}
