import { seededRandom } from '@herald/core';

/**
 * The nemesis's fault schedule, planned from a seed before the run starts, so
 * a failing run is replayed by running the same seed (HERALD_CHAOS_SEED):
 * the same faults, targets, order and (nominal) times. Pure: no I/O, no clock.
 *
 * Kinds:
 *   kill               SIGKILL one tier process, start it again durationMs later
 *   scheduler-cut      the traffic-cut fault switch on one scheduler, healed durationMs later
 *   mariadb-restart    restart the run's own MariaDB (down for as long as a restart takes)
 *   zookeeper-restart  restart the run's own ZooKeeper (same)
 *   kafka-freeze       freeze the run's own Kafka broker (SIGSTOP) for durationMs, then thaw it
 *
 * Constraints, checked on the planned intervals (a fault occupies its target
 * from atMs to atMs + durationMs + settleMs, the time a restart takes):
 *   - a process is never hit while it is still out;
 *   - every tier keeps at least one process in;
 *   - at most one scheduler is out (killed or cut) at once: APTA with 3 keeps 2;
 *   - at most one server (MariaDB, ZooKeeper, Kafka) is out at once.
 */
export type FaultKind = 'kill' | 'scheduler-cut' | 'mariadb-restart' | 'zookeeper-restart' | 'kafka-freeze';

export const FAULT_KINDS: readonly FaultKind[] = [
  'kill',
  'scheduler-cut',
  'mariadb-restart',
  'zookeeper-restart',
  'kafka-freeze',
];

export interface PlannedFault {
  /** 1-based position in the schedule. */
  n: number;
  /** Nominal start, ms after the nemesis starts. */
  atMs: number;
  kind: FaultKind;
  /** The process id for kill and scheduler-cut; the server's name otherwise. */
  target: string;
  /** How long the fault lasts before it is healed (kill: until the restart begins). */
  durationMs: number;
}

export interface ScheduleOptions {
  seed: number;
  /** Faults to plan. */
  count: number;
  /** Kinds allowed; each appears once among the first faults (in seeded order), the rest are drawn by weight. */
  kinds: readonly FaultKind[];
  /** Process ids by tier that kill may hit (presence agents are left out by the caller). */
  processes: Record<string, string[]>;
  /** Gap between two fault starts, [min, max] ms. */
  gapMs: [number, number];
  /** How long a fault lasts, [min, max] ms. */
  durationMs: [number, number];
  /** Time a target needs after its heal before it counts as back (a restart, a rejoin). */
  settleMs: number;
}

/** Draw weights after the first round: process kills are the common fault. */
const WEIGHT: Record<FaultKind, number> = {
  kill: 5,
  'scheduler-cut': 2,
  'mariadb-restart': 1,
  'zookeeper-restart': 1,
  'kafka-freeze': 1,
};
const SERVER: Record<string, string> = {
  'mariadb-restart': 'mariadb',
  'zookeeper-restart': 'zookeeper',
  'kafka-freeze': 'kafka',
};

export function planFaults(options: ScheduleOptions): PlannedFault[] {
  if (options.kinds.length === 0 || options.count <= 0) return [];
  const random = seededRandom(options.seed);
  const between = ([lo, hi]: [number, number]) => lo + Math.floor(random() * (hi - lo + 1));
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const schedulers = options.processes['scheduler'] ?? [];
  const tierOf = new Map(
    Object.entries(options.processes).flatMap(([tier, ids]) => ids.map((id) => [id, tier] as const)),
  );

  // The first round hits every kind once, in seeded order (Fisher-Yates).
  const firstRound = [...options.kinds];
  for (let i = firstRound.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [firstRound[i], firstRound[j]] = [firstRound[j]!, firstRound[i]!];
  }
  const totalWeight = options.kinds.reduce((sum, k) => sum + WEIGHT[k], 0);
  const drawKind = (): FaultKind => {
    let r = random() * totalWeight;
    for (const k of options.kinds) if ((r -= WEIGHT[k]) < 0) return k;
    return options.kinds[options.kinds.length - 1]!;
  };

  const planned: PlannedFault[] = [];
  const busyUntil = (at: number, target: string) =>
    planned.some((f) => f.target === target && at < f.atMs + f.durationMs + options.settleMs);
  const outAt = (at: number, targets: string[]) => targets.filter((t) => busyUntil(at, t));
  /** The targets a fault of `kind` may hit at `at`, under the constraints. */
  const candidates = (kind: FaultKind, at: number): string[] => {
    if (kind in SERVER) return outAt(at, Object.values(SERVER)).length === 0 ? [SERVER[kind]!] : [];
    const schedulerOut = outAt(at, schedulers).length > 0;
    if (kind === 'scheduler-cut') return schedulerOut || schedulers.length < 3 ? [] : [...schedulers];
    return [...tierOf.keys()].filter((id) => {
      const tier = tierOf.get(id)!;
      if (busyUntil(at, id)) return false;
      if (tier === 'scheduler') return !schedulerOut && schedulers.length >= 3;
      return outAt(at, options.processes[tier]!).length < options.processes[tier]!.length - 1;
    });
  };

  let at = 0;
  for (let skipped = 0; planned.length < options.count;) {
    at += between(options.gapMs);
    const wanted = planned.length < firstRound.length ? firstRound[planned.length]! : drawKind();
    // A kind with no free target now waits for the next gap (the first round keeps its order).
    const targets = candidates(wanted, at);
    if (targets.length === 0) {
      if (++skipped > 1000)
        throw new RangeError(
          `no target for a ${wanted} fault in this cluster (scheduler-cut and scheduler kills need 3 schedulers)`,
        );
      continue;
    }
    skipped = 0;
    planned.push({
      n: planned.length + 1,
      atMs: at,
      kind: wanted,
      target: pick(targets),
      durationMs: between(options.durationMs),
    });
  }
  return planned;
}

/** One line per fault, for the log and the replay note. */
export function describeFault(f: PlannedFault): string {
  return `#${f.n} t+${(f.atMs / 1000).toFixed(1)}s ${f.kind} ${f.target} for ${(f.durationMs / 1000).toFixed(1)}s`;
}
