import type { HostLoad } from '@herald/core/dispatch';
import type { ProcCounters } from './proc-stats';

/** The host's part of a load report: what changes between two readings of its counters. */
export type HostSample = Pick<
  HostLoad,
  'cpuCores' | 'cpuBusyPermille' | 'memTotalBytes' | 'memAvailableBytes' | 'nicBytesPerSecond'
>;

/**
 * How far back the CPU busy share looks. One report interval (0.3-1 s) holds
 * a few dozen ticks per core, so on a busy host one idle tick more or less
 * swings the share between 983 and 1000 permille, and with it the host's
 * planned part of a task between its full share and none (plan-dispatch's
 * "short"). Over 5 s the share moves with the host's load, not with noise.
 */
export const CPU_WINDOW_MS = 5_000;

interface Reading {
  counters: ProcCounters;
  at: number;
}

/**
 * Turns counter readings into rates: the CPU busy share over the last
 * `cpuWindowMs` (from the newest reading at least that old, or the oldest
 * while the sampler is younger than that), and NIC bytes per second since the
 * previous reading. The first reading has none before it, so it reports rates
 * of 0 (one interval of optimism, at start only).
 */
export function createHostSampler(
  read: () => Promise<ProcCounters>,
  now: () => number = () => performance.now(),
  cpuWindowMs = CPU_WINDOW_MS,
): () => Promise<HostSample> {
  let previous: Reading | undefined;
  /** The readings the CPU window may start from, oldest first. */
  const window: Reading[] = [];
  return async () => {
    const counters = await read();
    const at = now();
    const before = previous;
    previous = { counters, at };
    while (window.length > 1 && at - window[1]!.at >= cpuWindowMs) window.shift();
    const cpuBase = window[0];
    window.push(previous);
    const ticks = cpuBase === undefined ? 0 : counters.cpuTotalTicks - cpuBase.counters.cpuTotalTicks;
    const busy = cpuBase === undefined ? 0 : counters.cpuBusyTicks - cpuBase.counters.cpuBusyTicks;
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
