import type { HostLoad, ReceivedLoad } from '@herald/core/dispatch';

/** A report as this dispatcher keeps it: also since when its executor has been heard without a long gap. */
export interface HeardLoad extends ReceivedLoad {
  /**
   * When the executor's current run of reports began: each report of the run
   * arrived at most the steady gap (load.maxReportAgeMs) after the one before.
   * A gap longer than that (the executor stopped, or this dispatcher heard
   * nobody: partitioned, or starved of CPU) starts a new run.
   */
  heardSince: number;
}

/**
 * The latest host.load report of each executor, as this dispatcher received
 * it: what the unit planner reads (core planDispatch ignores the stale ones),
 * what the re-plan decision reads (replan.ts) and what the cluster view
 * shows. One entry per executor id, so the memory is bounded by the topology.
 */
export class HostLoads {
  private readonly byExecutor = new Map<string, HeardLoad>();

  /** @param steadyGapMs the longest gap between two reports of an executor that still counts as hearing it steadily */
  constructor(private readonly steadyGapMs: number) {}

  /** Keeps `report` as its executor's latest; `receivedAt` is this dispatcher's clock (reporters' clocks may disagree). */
  record(report: HostLoad, receivedAt: number): void {
    const previous = this.byExecutor.get(report.executorId);
    const steady = previous !== undefined && receivedAt - previous.receivedAt <= this.steadyGapMs;
    this.byExecutor.set(report.executorId, {
      report,
      receivedAt,
      heardSince: steady ? previous.heardSince : receivedAt,
    });
  }

  latest(): HeardLoad[] {
    return [...this.byExecutor.values()];
  }
}
