import type { ReceivedLoad } from '@herald/core/dispatch';

/** What the re-plan decision looks at: one unit.run's executor and this dispatcher's book of load reports. */
export interface ReplanInput {
  /** The executor the unit.run names (the unit's current assignment). */
  named: string;
  /** The executors this dispatcher can send to. */
  executorIds: readonly string[];
  /** The latest report per executor (HostLoads), stamped on this dispatcher's clock. */
  loads: readonly ReceivedLoad[];
  now: number;
  /** load.maxReportAgeMs: an executor without a report this recent has stopped reporting. */
  maxReportAgeMs: number;
  /** When this dispatcher started: before it has listened for maxReportAgeMs, no report proves nothing. */
  startedAt: number;
}

export type ReplanDecision =
  | { move: false; reason: 'reporting' | 'too-early' | 'no-live-executor' }
  | { move: true; to: string; reason: 'silent' | 'never-reported' };

/**
 * Decides whether a unit.run may go to the executor it names, or the unit
 * should move to a live one (docs/operations.md, "An executor lost").
 *
 * An executor whose host.load reports stopped (none within maxReportAgeMs)
 * is taken for dead: ZeroMQ would queue the unit's batches for it until it
 * came back, which may be never. The unit then moves to the live executor
 * (a fresh report) with the most free sender slots, then the least busy CPU,
 * then the lowest id, so the choice is the same on every dispatcher that
 * sees the same reports. With no live executor the run stays where it is:
 * there is nowhere better, and its own executor may return first.
 *
 * An executor that never reported counts as silent only once this
 * dispatcher has listened for maxReportAgeMs, so a dispatcher that just
 * started moves nothing on an empty book.
 */
export function replanDecision(input: ReplanInput): ReplanDecision {
  const fresh = input.loads.filter(
    (l) => input.now - l.receivedAt <= input.maxReportAgeMs && input.executorIds.includes(l.report.executorId),
  );
  if (fresh.some((l) => l.report.executorId === input.named)) return { move: false, reason: 'reporting' };
  const everReported = input.loads.some((l) => l.report.executorId === input.named);
  if (!everReported && input.now - input.startedAt < input.maxReportAgeMs) return { move: false, reason: 'too-early' };
  const live = fresh
    .map((l) => l.report)
    .sort(
      (a, b) =>
        b.senderSlotsFree - a.senderSlotsFree ||
        a.cpuBusyPermille - b.cpuBusyPermille ||
        (a.executorId < b.executorId ? -1 : 1),
    );
  const to = live[0]?.executorId;
  if (to === undefined) return { move: false, reason: 'no-live-executor' };
  return { move: true, to, reason: everReported ? 'silent' : 'never-reported' };
}
