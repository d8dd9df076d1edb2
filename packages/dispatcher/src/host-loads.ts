import type { HostLoad, ReceivedLoad } from '@herald/core/dispatch';

/**
 * The latest host.load report of each executor, as this dispatcher received
 * it: what the unit planner reads (core planDispatch ignores the stale ones)
 * and what the cluster view shows. One entry per executor id, so the memory
 * is bounded by the topology.
 */
export class HostLoads {
  private readonly byExecutor = new Map<string, ReceivedLoad>();

  /** Keeps `report` as its executor's latest; `receivedAt` is this dispatcher's clock (reporters' clocks may disagree). */
  record(report: HostLoad, receivedAt: number): void {
    this.byExecutor.set(report.executorId, { report, receivedAt });
  }

  latest(): ReceivedLoad[] {
    return [...this.byExecutor.values()];
  }
}
