/*
 * Local-time delivery's pre-processing step (docs/local-time.md): the
 * filtered list of a task with `deliverAt` split into groups, one per release
 * instant and UTC offset, and laid out group after group in a delivery-order
 * list (`g_<taskId>`) that its units range over.
 *
 * Why a second list: a unit is one contiguous range of positions, and a
 * group is scattered over the filtered list (sorted by uin, which the no-resend
 * ledger, a recipient's fate and the delivery report read by binary search).
 * So the filtered list stays as it is, and the delivery-order list holds the
 * same recipients with each group's sorted by uin inside its own run; no unit
 * straddles two runs, so the scheduler can hold a unit until its group's
 * instant (scheduler/src/local-release.ts).
 *
 * Each recipient's zone comes from the attribute index's `tz=<zone>`
 * bitsets: a few dozen keys read chunk by chunk, whatever the audience's
 * size, never one row per user.
 */
import { HeraldError, ErrorCodes } from '@herald/core';
import type { AttributeIndex, Clock } from '@herald/core/ports';
import { CHUNK_BITS, CHUNK_UINS, TZ_KEY_PREFIX, forEachStoredMember } from '@herald/core/targeting';
import {
  MAX_LOCAL_GROUPS,
  quietHoursEnd,
  zoneOffsetMinutes,
  zoneRelease,
  type DeliverAt,
  type QuietHours,
  type ZoneRelease,
} from '@herald/core/time';
import type { PlannedGroup } from '@herald/transport';

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
  /** The recipients in delivery order: group after group, each sorted by uin. */
  order: Uint32Array;
  groups: PlannedGroup[];
}

/** Chunks read per attribute-index call (2^24 uins): few calls over a sparse audience; at most 256 stored chunks a zone in memory. */
const CHUNKS_PER_READ = 256;
/** Marks a uin of the chunk being read that has no `tz` bitset: the default zone's group. */
const NO_ZONE = 0xffff;

/** Splits `kept` (sorted, distinct) into its release groups and the delivery-order list. */
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
  const groupAt = await groupPerPosition(kept, zoneKeys, keyGroups, defaultGroup, index);
  return layOut(kept, groupAt, releases.all());
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
    if (quietHours === undefined || release.skipped) return release;
    const releaseAt = quietHoursEnd(zone, quietHours, release.releaseAt);
    if (releaseAt === release.releaseAt) return release;
    return { releaseAt, offsetMinutes: zoneOffsetMinutes(zone, releaseAt), skipped: releaseAt >= expiresAt };
  }

  all(): readonly ZoneRelease[] {
    return this.releases;
  }
}

/** Each position's group: its uin's `tz` bitset's, or the default zone's for a uin in none. */
async function groupPerPosition(
  kept: Uint32Array,
  zoneKeys: readonly string[],
  keyGroups: readonly number[],
  defaultGroup: number,
  index: AttributeIndex,
): Promise<Uint8Array> {
  const groupAt = new Uint8Array(kept.length).fill(defaultGroup);
  if (zoneKeys.length === 0) return groupAt;
  const keyIndex = new Map(zoneKeys.map((key, i) => [key, i]));
  // Each chunk's uins' groups by their low 16 bits; only the entries a chunk set are reset after it,
  // so a sparse audience over many chunks costs its members, not 2^16 a chunk.
  const lowGroup = new Uint16Array(CHUNK_UINS).fill(NO_ZONE);
  const touched = new Uint32Array(CHUNK_UINS);
  let at = 0;
  while (at < kept.length) {
    const from = kept[at]! >>> CHUNK_BITS;
    const stored = await index.readChunks(zoneKeys, from, from + CHUNKS_PER_READ);
    // Ordered by chunk then key: one pass per chunk fills its uins' groups, then its positions read them.
    let s = 0;
    for (let chunk = from; chunk < from + CHUNKS_PER_READ && at < kept.length; chunk++) {
      if (kept[at]! >>> CHUNK_BITS !== chunk) {
        while (s < stored.length && stored[s]!.chunk === chunk) s++;
        continue;
      }
      let set = 0;
      for (; s < stored.length && stored[s]!.chunk === chunk; s++) {
        const group = keyGroups[keyIndex.get(stored[s]!.key)!]!;
        forEachStoredMember(stored[s]!.bytes, (low) => {
          lowGroup[low] = group;
          touched[set++] = low;
        });
      }
      for (; at < kept.length && kept[at]! >>> CHUNK_BITS === chunk; at++) {
        const group = lowGroup[kept[at]! & (CHUNK_UINS - 1)]!;
        if (group !== NO_ZONE) groupAt[at] = group;
      }
      for (let t = 0; t < set; t++) lowGroup[touched[t]!] = NO_ZONE;
    }
  }
  return groupAt;
}

/** The delivery-order list: groups by release instant (skipped ones last), each keeping the uins' sorted order. */
function layOut(kept: Uint32Array, groupAt: Uint8Array, releases: readonly ZoneRelease[]): LocalGrouping {
  const counts = new Array<number>(releases.length).fill(0);
  for (const group of groupAt) counts[group]!++;
  const used = releases.map((_, g) => g).filter((g) => counts[g]! > 0);
  used.sort((a, b) => {
    const ra = releases[a]!;
    const rb = releases[b]!;
    return (
      Number(ra.skipped) - Number(rb.skipped) || ra.releaseAt - rb.releaseAt || ra.offsetMinutes - rb.offsetMinutes
    );
  });
  const startOf = new Array<number>(releases.length).fill(0);
  const groups: PlannedGroup[] = [];
  let start = 0;
  for (const g of used) {
    startOf[g] = start;
    const { releaseAt, offsetMinutes, skipped } = releases[g]!;
    groups.push({ offsetMinutes, releaseAt, start, end: start + counts[g]!, skipped });
    start += counts[g]!;
  }
  const order = new Uint32Array(kept.length);
  const next = [...startOf];
  for (let i = 0; i < kept.length; i++) order[next[groupAt[i]!]!++] = kept[i]!;
  return { order, groups };
}
