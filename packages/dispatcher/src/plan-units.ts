import type { PlannedUnit } from '@herald/transport';

export interface ExecutorLoad {
  id: string;
  /** Recipients currently queued on the executor's host (its manager's report). */
  pending: number;
}

/**
 * Splits `count` recipients into units of at most `unitSize` and places each
 * on the least-loaded executor, counting the units already placed, so one host
 * gets the whole task when it is small and the work spreads when it is not.
 */
export function planUnits(count: number, unitSize: number, executors: readonly ExecutorLoad[]): PlannedUnit[] {
  if (executors.length === 0) throw new RangeError('no executor to plan units on');
  const load = new Map(executors.map((e) => [e.id, e.pending]));
  const units: PlannedUnit[] = [];
  for (let start = 0; start < count; start += unitSize) {
    const end = Math.min(count, start + unitSize);
    let best = executors[0]!.id;
    for (const { id } of executors) if (load.get(id)! < load.get(best)!) best = id;
    load.set(best, load.get(best)! + (end - start));
    units.push({ start, end, executorId: best });
  }
  return units;
}
