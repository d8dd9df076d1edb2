import type { HeardLoad } from './host-loads';

/** What the re-plan decision looks at: one unit.run's executor and this dispatcher's book of load reports. */
export interface ReplanInput {
  /** The executor the unit.run names (the unit's current assignment). */
  named: string;
  /** The executors this dispatcher can send to. */
  executorIds: readonly string[];
  /** The latest report per executor (HostLoads), stamped on this dispatcher's clock. */
  loads: readonly HeardLoad[];
  now: number;
  /** load.maxReportAgeMs: an executor without a report this recent has stopped reporting. */
  maxReportAgeMs: number;
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
 * (a fresh report, heard steadily: below) with the most free sender slots,
 * then the least busy CPU, then the lowest id, so the choice is the same on
 * every dispatcher that sees the same reports. With no live executor the
 * run stays where it is: there is nowhere better, and its own executor may
 * return first.
 *
 * Silence proves something only while this dispatcher was listening: it
 * moves a unit only when it has heard some live executor steadily (no gap
 * longer than maxReportAgeMs) for at least maxReportAgeMs. A dispatcher that
 * just started, that comes back from a partition, or that was starved of CPU
 * (its reports then arrive in one late burst) has heard nobody steadily; the
 * first reports after it prove only who reported first, so a unit.run it
 * handles then goes where it names. Moving it would have its new executor
 * send again every batch the named one had delivered since the unit's last
 * checkpoint, and the named one may well be alive.
 */
export function replanDecision(input: ReplanInput): ReplanDecision {
  const fresh = input.loads.filter(
    (l) => input.now - l.receivedAt <= input.maxReportAgeMs && input.executorIds.includes(l.report.executorId),
  );
  if (fresh.some((l) => l.report.executorId === input.named)) return { move: false, reason: 'reporting' };
  if (fresh.length === 0) return { move: false, reason: 'no-live-executor' };
  const steady = fresh.filter((l) => input.now - l.heardSince >= input.maxReportAgeMs);
  if (steady.length === 0) return { move: false, reason: 'too-early' };
  const to = steady
    .map((l) => l.report)
    .sort(
      (a, b) =>
        b.senderSlotsFree - a.senderSlotsFree ||
        a.cpuBusyPermille - b.cpuBusyPermille ||
        (a.executorId < b.executorId ? -1 : 1),
    )[0]!.executorId;
  const everReported = input.loads.some((l) => l.report.executorId === input.named);
  return { move: true, to, reason: everReported ? 'silent' : 'never-reported' };
}
