/**
 * What an executor host's manager reports every `load.reportIntervalMs`
 * (docs/scheduling.md, "Load-aware dispatch"; the seed's manager 上报的负载): the host's CPU,
 * memory and NIC as the kernel counts them, plus the reporting executor's own
 * free sender slots. Whole numbers only, so the report crosses the wire as
 * integers (transport message host.load).
 */
export interface HostLoad {
  executorId: string;
  /** When the report was taken, ms since the epoch, on the reporter's clock (shown, never compared across hosts). */
  sentAt: number;
  /** Online CPUs of the host. */
  cpuCores: number;
  /** Share of the host's CPU time spent busy over the last interval, in thousandths (0..1000). */
  cpuBusyPermille: number;
  memTotalBytes: number;
  /** Memory the kernel could hand out without swapping (MemAvailable), at most memTotalBytes. */
  memAvailableBytes: number;
  /** What the host's NIC carries at most, bytes per second (configured: load.nicBytesPerSecond). */
  nicCapacityBytesPerSecond: number;
  /** Bytes per second received plus sent over the last interval, every interface but loopback. */
  nicBytesPerSecond: number;
  /** Units the executor runs at once at most (load.senderSlots). */
  senderSlots: number;
  /** Of those, the ones not running a unit now, at most senderSlots. */
  senderSlotsFree: number;
}

/** A report as a dispatcher keeps it: with the time it arrived, on the dispatcher's own clock. */
export interface ReceivedLoad {
  report: HostLoad;
  receivedAt: number;
}

/**
 * The reports not older than `maxAgeMs` at `now`, by arrival time on the
 * receiver's clock (hosts' clocks may disagree; the receiver's is the one
 * that decides what "a second ago" means here).
 */
export function freshLoads(loads: Iterable<ReceivedLoad>, now: number, maxAgeMs: number): HostLoad[] {
  const fresh: HostLoad[] = [];
  for (const { report, receivedAt } of loads) if (now - receivedAt <= maxAgeMs) fresh.push(report);
  return fresh;
}
