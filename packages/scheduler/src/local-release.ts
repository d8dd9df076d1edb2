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

/** When a group's units may run: its release instant, or the end of the quiet hours its sending met, if later. */
function runsFrom(group: LocalGroup): number {
  return Math.max(group.releaseAt, group.heldUntil ?? 0);
}

/** Whether the unit must wait: for its group's release instant, or for the end of the quiet hours its group met. */
export function isHeld(task: Task, unit: ExecutionUnit, now: number): boolean {
  const group = groupOfUnit(task, unit);
  return group !== undefined && runsFrom(group) > now;
}

/** The earliest instant still ahead at which a group with units may run, or undefined. */
export function nextRelease(task: Task, now: number): number | undefined {
  let next: number | undefined;
  for (const g of task.report.localGroups ?? [])
    if (!g.skipped && runsFrom(g) > now && (next === undefined || runsFrom(g) < next)) next = runsFrom(g);
  return next;
}

/**
 * The task's groups after an executor held a batch of the unit's group for
 * its quiet hours until `until` (docs/local-time.md, "Held, or queued
 * offline"): the group waits until then, or until an earlier end another
 * unit of it reported (those still inside their quiet hours then are held
 * again). Undefined when the unit is in no group: a task of one instant.
 */
export function heldForQuietHours(
  task: Task,
  unit: ExecutionUnit,
  until: number,
  now: number,
): LocalGroup[] | undefined {
  const groups = task.report.localGroups;
  const group = groupOfUnit(task, unit);
  if (groups === undefined || group === undefined) return undefined;
  const current = group.heldUntil !== undefined && group.heldUntil > now ? group.heldUntil : undefined;
  const heldUntil = current === undefined ? until : Math.min(current, until);
  return groups.map((g) => (g === group ? { ...g, heldUntil } : g));
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
