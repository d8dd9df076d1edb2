import type { LoadConfig } from '../config/options';
import { freshLoads, type HostLoad, type ReceivedLoad } from './host-load';

/**
 * Load-aware dispatch (docs/scheduling.md, "Load-aware dispatch"): what a task needs, which executor hosts can give it, and the
 * task's execution units over them. Pure: the caller passes the reports it
 * holds and the time.
 *
 * The seed: 内存和任务的大小有关,CPU 网卡带宽的需求和发送速度有关 (memory from the
 * size, CPU and NIC from the speed); a speed the account may not set is
 * computed from global load; one host when one can meet the need, else the
 * task is split into units over several.
 */

/** Positions [start, end) of the filtered list that a task sends as one part: no unit crosses its ends. */
export interface ListSegment {
  start: number;
  end: number;
}

/** One execution unit: recipients [start, end) of the filtered list, sent by one executor. */
export interface UnitPlacement {
  start: number;
  end: number;
  executorId: string;
}

export interface DispatchTask {
  /** Recipients to send (the filtered list's length). */
  count: number;
  /** Recipients per second the task asks for; used only when `maySetSpeed`. */
  requestedSpeed?: number;
  /** Whether the task's account may choose its speed; when not, the speed comes from global load. */
  maySetSpeed: boolean;
}

/** What the task takes from the hosts sending it, summed over them. */
export interface DispatchNeeds {
  memoryBytes: number;
  /** CPU cores busy while sending at `speed`. */
  cpuCores: number;
  nicBytesPerSecond: number;
}

/**
 * Why the units went where they did:
 * - 'one-host': one host could meet the whole need: all units there.
 * - 'split': none could alone; the fewest hosts that meet it together.
 * - 'short': not even every host together meets it; every host with a free
 *   slot, each its share plus an even part of the shortfall (the task sends
 *   slower than `speed`).
 * - 'saturated': no fresh host has spare CPU, NIC or memory: even split over
 *   the fresh hosts with a free sender slot.
 * - 'no-free-slot': every fresh host reports 0 free sender slots: even split over the fresh hosts.
 * - 'no-fresh-report': no report younger than load.maxReportAgeMs: even split over every executor.
 */
export type DispatchReason = 'one-host' | 'split' | 'short' | 'saturated' | 'no-free-slot' | 'no-fresh-report';

export interface DispatchPlan {
  units: UnitPlacement[];
  reason: DispatchReason;
  /** Recipients per second the needs were estimated for (requested, or from global load). */
  speed: number;
  needs: DispatchNeeds;
  /** The executors given recipients, in list order. */
  hosts: string[];
}

export interface DispatchInput {
  task: DispatchTask;
  /** Recipients per unit at most (dispatcher.unitSize). */
  unitSize: number;
  /**
   * The parts of the filtered list the units cover, ascending and disjoint, whose lengths add up to
   * `task.count` (default: the one part [0, count)). Each is cut over the same hosts in the same
   * proportions, no unit crossing from one into the next: a canary's sample and the rest, a local-time
   * task's groups (a skipped group is left out). The needs and the hosts are the whole task's, planned once.
   */
  segments?: readonly ListSegment[];
  /** Every executor the dispatcher can reach, in a stable order (ties go to the first). */
  executorIds: readonly string[];
  /** The latest report per executor, as received (older ones and unknown executors are ignored). */
  loads: readonly ReceivedLoad[];
  now: number;
  config: LoadConfig;
}

/** What one host can still give, in the units the needs are counted in. */
interface Spare {
  id: string;
  /** Recipients per second its spare CPU and NIC carry. */
  speed: number;
  /** Recipients its available memory holds. */
  recipients: number;
  /** Its busiest resource, 0..1: the load that "least-loaded" compares. */
  utilization: number;
}

export function planDispatch(input: DispatchInput): DispatchPlan {
  const { task, config } = input;
  if (input.executorIds.length === 0) throw new RangeError('no executor to plan units on');
  const known = new Set(input.executorIds);
  const order = new Map(input.executorIds.map((id, i) => [id, i]));
  const fresh = freshLoads(input.loads, input.now, config.maxReportAgeMs)
    .filter((r) => known.has(r.executorId))
    .sort((a, b) => order.get(a.executorId)! - order.get(b.executorId)!);
  const withSlots = fresh.filter((r) => r.senderSlotsFree > 0);
  const spares = withSlots.map((r) => spareOf(r, config));
  const speed = speedOf(task, spares, config);
  const needs = needsOf(task.count, speed, config);
  const segments = segmentsOf(input);
  const plan = (reason: DispatchReason, shares: readonly { id: string; weight: number }[]): DispatchPlan => {
    const units = segments.flatMap((segment) => placeUnits(segment, input.unitSize, shares));
    return { units, reason, speed, needs, hosts: [...new Set(units.map((u) => u.executorId))] };
  };
  const even = (ids: readonly string[]) => ids.map((id) => ({ id, weight: 1 }));

  if (fresh.length === 0) return plan('no-fresh-report', even(input.executorIds));
  if (withSlots.length === 0) return plan('no-free-slot', even(fresh.map((r) => r.executorId)));
  // The share of the whole task each host can carry at `speed`: 1 or more means it fits alone.
  const fits = spares.map((s) => ({
    id: s.id,
    utilization: s.utilization,
    share: Math.min(speed > 0 ? s.speed / speed : 0, task.count > 0 ? s.recipients / task.count : Infinity),
  }));
  const able = fits.filter((f) => f.share > 0);
  if (able.length === 0) return plan('saturated', even(withSlots.map((r) => r.executorId)));

  // One host when one can: the least loaded of those that fit keeps the task's cache in one place.
  const alone = able.filter((f) => f.share >= 1).sort((a, b) => a.utilization - b.utilization)[0];
  if (alone !== undefined) return plan('one-host', [{ id: alone.id, weight: 1 }]);

  // Else the fewest hosts: the largest shares first until they add up to the whole task.
  const chosen: typeof able = [];
  let covered = 0;
  for (const f of [...able].sort((a, b) => b.share - a.share)) {
    if (covered >= 1) break;
    chosen.push(f);
    covered += f.share;
  }
  if (covered < 1) return plan('short', shortShares(spares, able, covered));
  chosen.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return plan(
    'split',
    chosen.map((f) => ({ id: f.id, weight: f.share })),
  );
}

/**
 * Short: even every host's spare together cannot meet the speed, so the task
 * sends slower than asked whatever the plan. Each host with a free slot takes
 * its share plus an even part of the shortfall, hosts without spare included.
 * On a busy machine a host's spare swings with one idle tick (983 or 1,000
 * permille busy); by shares alone, whichever host read the tick would take the
 * whole task and the others none.
 */
function shortShares(
  spares: readonly Spare[],
  able: readonly { id: string; share: number }[],
  covered: number,
): { id: string; weight: number }[] {
  const shareOf = new Map(able.map((f) => [f.id, f.share]));
  const rest = (1 - covered) / spares.length;
  return spares.map((s) => ({ id: s.id, weight: (shareOf.get(s.id) ?? 0) + rest }));
}

function spareOf(r: HostLoad, config: LoadConfig): Spare {
  const idle = Math.max(0, 1000 - r.cpuBusyPermille) / 1000;
  const spareCpuMicrosPerSecond = r.cpuCores * idle * 1e6;
  const spareNic = Math.max(0, r.nicCapacityBytesPerSecond - r.nicBytesPerSecond);
  const nicUsed = r.nicCapacityBytesPerSecond > 0 ? Math.min(1, r.nicBytesPerSecond / r.nicCapacityBytesPerSecond) : 1;
  const memUsed = r.memTotalBytes > 0 ? 1 - r.memAvailableBytes / r.memTotalBytes : 1;
  return {
    id: r.executorId,
    speed: Math.min(spareCpuMicrosPerSecond / config.cpuMicrosPerRecipient, spareNic / config.nicBytesPerRecipient),
    recipients: r.memAvailableBytes / config.memoryBytesPerRecipient,
    utilization: Math.max(r.cpuBusyPermille / 1000, nicUsed, memUsed),
  };
}

/**
 * The speed the needs are estimated for: the task's own when its account may
 * set one; else `globalSpeedSharePercent` of what every fresh host with a free
 * slot could still carry together (so one task never takes the whole cluster).
 */
function speedOf(task: DispatchTask, spares: readonly Spare[], config: LoadConfig): number {
  if (task.maySetSpeed && task.requestedSpeed !== undefined && task.requestedSpeed > 0) return task.requestedSpeed;
  let total = 0;
  for (const s of spares) total += s.speed;
  return Math.floor((total * config.globalSpeedSharePercent) / 100);
}

export function needsOf(count: number, speed: number, config: LoadConfig): DispatchNeeds {
  return {
    memoryBytes: count * config.memoryBytesPerRecipient,
    cpuCores: (speed * config.cpuMicrosPerRecipient) / 1e6,
    nicBytesPerSecond: speed * config.nicBytesPerRecipient,
  };
}

/** The input's segments, checked: ascending, disjoint, non-empty, adding up to the task's count. */
function segmentsOf(input: DispatchInput): readonly ListSegment[] {
  const { segments, task } = input;
  if (segments === undefined) return task.count > 0 ? [{ start: 0, end: task.count }] : [];
  let covered = 0;
  let after = 0;
  for (const { start, end } of segments) {
    if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < after || end <= start)
      throw new RangeError(`segments must be ascending, disjoint and non-empty: [${start}, ${end}) after ${after}`);
    covered += end - start;
    after = end;
  }
  if (covered !== task.count) throw new RangeError(`segments cover ${covered} recipients, the task ${task.count}`);
  return segments;
}

/**
 * Cuts a segment into one contiguous range per host, in proportion to its
 * weight, then each range into units of at most `unitSize`. The boundaries
 * are rounded cumulative sums ending at exactly the segment's end, so the
 * units cover every recipient once whatever the weights.
 */
function placeUnits(
  { start: first, end: last }: ListSegment,
  unitSize: number,
  shares: readonly { id: string; weight: number }[],
): UnitPlacement[] {
  const count = last - first;
  let total = 0;
  for (const s of shares) total += s.weight;
  const units: UnitPlacement[] = [];
  let start = 0;
  let cumulative = 0;
  shares.forEach((share, i) => {
    cumulative += share.weight;
    const end =
      i === shares.length - 1 ? count : Math.min(count, Math.max(start, Math.round((count * cumulative) / total)));
    for (let from = start; from < end; from += unitSize)
      units.push({ start: first + from, end: first + Math.min(end, from + unitSize), executorId: share.id });
    start = end;
  });
  return units;
}
