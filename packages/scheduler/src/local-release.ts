/*
 * Local-time delivery at the scheduler (docs/local-time.md): a local-time
 * task's units are planned group by group over its delivery-order list
 * (dispatcher/src/local-groups.ts), and a unit waits, unassigned, until its
 * group's release instant. The task is SENDING meanwhile: the tick releases
 * each group when its instant comes (unit-driver.ts `releaseDue`), and its
 * report lists every group with its instant and counts.
 */
import type { ExecutionUnit, LocalGroup, Task } from '@herald/core/task';
import type { PlannedGroup } from '@herald/transport';

/** The groups a pre-processing result planned, as the task's report first lists them. */
export function plannedLocalGroups(groups: readonly PlannedGroup[]): LocalGroup[] {
  return groups.map((g) => ({ ...g, released: false, delivered: 0, offline: 0 }));
}

/** The group whose run holds the unit (units never straddle two), or undefined for a task of one instant. */
export function groupOfUnit(task: Task, unit: ExecutionUnit): LocalGroup | undefined {
  return task.report.localGroups?.find((g) => unit.start >= g.start && unit.end <= g.end);
}

/** Whether the unit must wait for its group's release instant. */
export function isHeld(task: Task, unit: ExecutionUnit, now: number): boolean {
  const group = groupOfUnit(task, unit);
  return group !== undefined && group.releaseAt > now;
}

/** The earliest release instant still ahead among the task's groups with units, or undefined. */
export function nextRelease(task: Task, now: number): number | undefined {
  let next: number | undefined;
  for (const g of task.report.localGroups ?? [])
    if (!g.skipped && g.releaseAt > now && (next === undefined || g.releaseAt < next)) next = g.releaseAt;
  return next;
}

/**
 * The task's groups with their counts from its units: delivered and offline
 * summed over the units in each group's run, and released once one of its
 * units has been handed out.
 */
export function localGroupsReport(task: Task, units: readonly ExecutionUnit[]): LocalGroup[] | undefined {
  const groups = task.report.localGroups;
  if (groups === undefined) return undefined;
  return groups.map((g) => {
    let delivered = 0;
    let offline = 0;
    let released = g.released;
    for (const u of units) {
      if (u.start < g.start || u.end > g.end) continue;
      delivered += u.delivered;
      offline += u.offline;
      if (u.state !== 'PENDING') released = true;
    }
    return { ...g, delivered, offline, released };
  });
}
