/*
 * Local-time delivery's pre-processing step (docs/local-time.md): the
 * filtered list of a task with `deliverAt` split into groups, one per release
 * instant and UTC offset, and laid out group after group, each group's
 * recipients sorted by uin inside its own run.
 *
 * Why group after group: a unit is one contiguous range of positions, and no
 * unit may straddle two groups, so the scheduler can hold a unit until its
 * group's instant (scheduler/src/local-release.ts). The readers that search
 * the list by uin (a recipient's fate, the delivery report, the no-resend
 * ledger) search or merge each group's sorted run. The list is published once
 * under two names: the filtered list `f_<taskId>` and the delivery-order list
 * `g_<taskId>` the units name. (A task pre-processed by an earlier Herald has
 * two files, `f_` sorted by uin and `g_` in delivery order: both layouts are
 * read, told apart by the filtered list's SORTED flag.)
 *
 * Each recipient's zone comes from the attribute index's `tz=<zone>`
 * bitsets (user-zones.ts).
 */
import { HeraldError, ErrorCodes } from '@herald/core';
import type { AttributeIndex, Clock } from '@herald/core/ports';
import { TZ_KEY_PREFIX } from '@herald/core/targeting';
import {
  MAX_LOCAL_GROUPS,
  quietHoursEnd,
  zoneOffsetMinutes,
  zoneRelease,
  type DeliverAt,
  type QuietHours,
  type ZoneRelease,
} from '@herald/core/time';
import type { ListInRuns } from '@herald/audience';
import type { PlannedGroup } from '@herald/transport';
import { valuePerPosition } from './user-zones';

/** What grouping needs to know of the task: its local time, its quiet hours, or both. */
export interface LocalTimeTask {
  deliverAt?: DeliverAt;
  quietHours?: QuietHours;
  expiresAt: number;
}

/** Where the dispatcher finds a task's local-time delivery and its recipients' zones. */
export interface LocalTimeSource {
  /** The task's deliverAt, quiet hours and expiry, or undefined for a task with neither. */
  taskOf(taskId: number): Promise<LocalTimeTask | undefined>;
  index: AttributeIndex;
  /** The time the zones' releases are planned from (`missed` is judged against it). */
  clock: Clock;
}

export interface LocalGrouping {
  /** The recipients in delivery order, group after group, each sorted by uin: the filtered list as published. */
  list: ListInRuns;
  groups: PlannedGroup[];
}

/** Splits `kept` (sorted, distinct) into its release groups, laid out group after group. */
export async function groupByLocalTime(
  kept: Uint32Array,
  task: LocalTimeTask,
  index: AttributeIndex,
  plannedAt: number,
): Promise<LocalGrouping> {
  const releases = new GroupTable(task, plannedAt);
  // Recipients without a tz: the task's default zone; a task with quiet hours only takes UTC.
  const defaultGroup = releases.groupOf(task.deliverAt?.defaultTimeZone ?? 'UTC');
  const zoneKeys = await index.keysWithPrefix(TZ_KEY_PREFIX);
  const keyGroups = zoneKeys.map((key) => releases.groupOf(key.slice(TZ_KEY_PREFIX.length)));
  // Every group is known before the walk, so the walk writes each recipient's run (its group's place in
  // delivery order) straight away: no second pass over the list to renumber groups into runs.
  const groupOfRun = deliveryOrder(releases.all());
  const runOfGroup = new Uint8Array(groupOfRun.length);
  groupOfRun.forEach((g, run) => (runOfGroup[g] = run));
  const runAt = await valuePerPosition(
    kept,
    zoneKeys,
    keyGroups.map((g) => runOfGroup[g]!),
    index,
    new Uint8Array(kept.length).fill(runOfGroup[defaultGroup]!),
  );
  return layOut(kept, runAt, groupOfRun, releases.all());
}

/** The groups met so far, one per (release instant, offset, skipped). */
class GroupTable {
  private readonly byKey = new Map<string, number>();
  private readonly releases: ZoneRelease[] = [];

  constructor(
    private readonly task: LocalTimeTask,
    private readonly plannedAt: number,
  ) {}

  groupOf(zone: string): number {
    const release = this.releaseOf(zone);
    const key = `${release.releaseAt}/${release.offsetMinutes}/${release.skipped}`;
    let group = this.byKey.get(key);
    if (group === undefined) {
      group = this.releases.length;
      if (group >= MAX_LOCAL_GROUPS)
        throw new HeraldError(
          ErrorCodes.INTERNAL,
          `a local-time task splits into more than ${MAX_LOCAL_GROUPS} groups`,
        );
      this.byKey.set(key, group);
      this.releases.push(release);
    }
    return group;
  }

  /** The zone's local-time release (or the planning instant), moved to the end of its quiet hours when inside them. */
  private releaseOf(zone: string): ZoneRelease {
    const { deliverAt, quietHours, expiresAt } = this.task;
    const release =
      deliverAt === undefined
        ? { releaseAt: this.plannedAt, offsetMinutes: zoneOffsetMinutes(zone, this.plannedAt), skipped: false }
        : zoneRelease(zone, deliverAt, this.plannedAt, expiresAt);
    // With during 'offline' nothing is held: the executors queue each push that lands inside them offline.
    if (quietHours === undefined || quietHours.during === 'offline' || release.skipped) return release;
    const releaseAt = quietHoursEnd(zone, quietHours, release.releaseAt);
    if (releaseAt === release.releaseAt) return release;
    return { releaseAt, offsetMinutes: zoneOffsetMinutes(zone, releaseAt), skipped: releaseAt >= expiresAt };
  }

  all(): readonly ZoneRelease[] {
    return this.releases;
  }
}

/** The group of each run: groups by release instant (skipped ones last), then by offset. */
function deliveryOrder(releases: readonly ZoneRelease[]): number[] {
  const order = releases.map((_, g) => g);
  order.sort((a, b) => {
    const ra = releases[a]!;
    const rb = releases[b]!;
    return (
      Number(ra.skipped) - Number(rb.skipped) || ra.releaseAt - rb.releaseAt || ra.offsetMinutes - rb.offsetMinutes
    );
  });
  return order;
}

/**
 * The list in delivery order, run after run, each keeping the uins' sorted
 * order, as written by audience's writeListInRuns (not laid out in memory),
 * and the groups that have recipients. A group nobody is in keeps its run,
 * empty: the runs tile the list all the same.
 */
function layOut(
  kept: Uint32Array,
  runAt: Uint8Array,
  groupOfRun: readonly number[],
  releases: readonly ZoneRelease[],
): LocalGrouping {
  // A typed counter: this pass over every recipient is most of this function's time.
  const counts = new Uint32Array(releases.length);
  for (let i = 0; i < runAt.length; i++) counts[runAt[i]!]!++;
  const runs: { start: number; end: number }[] = [];
  const groups: PlannedGroup[] = [];
  let start = 0;
  for (let run = 0; run < releases.length; run++) {
    const end = start + counts[run]!;
    runs.push({ start, end });
    if (end > start) {
      const { releaseAt, offsetMinutes, skipped } = releases[groupOfRun[run]!]!;
      groups.push({ offsetMinutes, releaseAt, start, end, skipped });
    }
    start = end;
  }
  return { list: { uins: kept, runOf: runAt, runs }, groups };
}
