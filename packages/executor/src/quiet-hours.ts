/*
 * Quiet hours on the executors (docs/local-time.md, "Quiet hours"): what the
 * dispatcher's planning cannot see, judged per recipient at the moment of
 * sending and at login, in the recipient's own zone (their `tz`, or the
 * task's default zone, UTC without one). Zones are judged once each per
 * batch: a batch's users share a few dozen.
 */
import { MAX_USERS_PER_LOOKUP, type UserAttributeLookup } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { isQuietAt, quietHoursEnd, type QuietHours } from '@herald/core/time';

/** The zone of a task's recipients without a `tz`: as the dispatcher groups them (local-groups.ts). */
const defaultZoneOf = (task: Task) => task.deliverAt?.defaultTimeZone ?? 'UTC';

/**
 * A batch's online users, less those inside the task's quiet hours at `now`
 * when it says `during: 'offline'`: those are queued to their offline lists
 * with the batch's offline users, and reach them at a later login. Other
 * tasks pass through untouched, with no lookup. Both answers stay sorted.
 */
export async function queueInsideQuietHours(
  task: Task,
  online: Uint32Array,
  offline: Uint32Array,
  zones: UserAttributeLookup | undefined,
  now: number,
): Promise<{ reached: Uint32Array; queued: Uint32Array }> {
  const quiet = task.quietHours;
  if (quiet?.during !== 'offline' || online.length === 0) return { reached: online, queued: offline };
  const inside = await quietFlags(online, quiet, defaultZoneOf(task), zones, now);
  const reached = online.filter((_, i) => inside[i] === 0);
  if (reached.length === online.length) return { reached: online, queued: offline };
  return {
    reached,
    queued: mergeSorted(
      offline,
      online.filter((_, i) => inside[i] === 1),
    ),
  };
}

/**
 * With quiet hours held (`during: 'hold'`, the default): when a recipient of
 * the batch is inside them at `now` in their zone, the earliest instant at
 * which one of those leaves them, else undefined. The caller holds the batch
 * whole until then, sending none of it: its unit's checkpoint then stays on a
 * boundary of the unit's stream, so the run from it later streams the same
 * batches and the confirmed-batch log still knows any an earlier stream
 * delivered. A unit ranges over one local-time group, whose recipients share
 * an offset, so they enter quiet hours together: a batch is quiet whole or not
 * at all (two zones of one offset whose daylight saving differs are the
 * exception; the hold then waits for the earlier end and judges again).
 */
export async function quietHoldOf(
  task: Task,
  uins: Uint32Array,
  zones: UserAttributeLookup | undefined,
  now: number,
): Promise<number | undefined> {
  const quiet = task.quietHours;
  if (quiet === undefined || quiet.during === 'offline' || uins.length === 0) return undefined;
  const ends = new Map<string, number>();
  let until: number | undefined;
  await visitZones(uins, defaultZoneOf(task), zones, (_, zone) => {
    let end = ends.get(zone);
    if (end === undefined) ends.set(zone, (end = quietHoursEnd(zone, quiet, now)));
    if (end > now && (until === undefined || end < until)) until = end;
  });
  return until;
}

/** Whether a login at `now` keeps this task's entry for later: the account holds logins inside the task's quiet hours. */
export function holdsAtLogin(task: Task, zone: string | undefined, now: number): boolean {
  const quiet = task.quietHours;
  return quiet?.atLogin === 'hold' && isQuietAt(zone ?? defaultZoneOf(task), quiet, now);
}

/** 1 for each user inside the quiet hours at `now` in their zone, 0 otherwise; one lookup per MAX_USERS_PER_LOOKUP users. */
async function quietFlags(
  uins: Uint32Array,
  quiet: QuietHours,
  defaultZone: string,
  zones: UserAttributeLookup | undefined,
  now: number,
): Promise<Uint8Array> {
  const judged = new Map<string, number>();
  const flags = new Uint8Array(uins.length);
  await visitZones(uins, defaultZone, zones, (i, zone) => {
    let flag = judged.get(zone);
    if (flag === undefined) judged.set(zone, (flag = isQuietAt(zone, quiet, now) ? 1 : 0));
    flags[i] = flag;
  });
  return flags;
}

/** Calls `visit` with each user's index and zone (their `tz`, else `defaultZone`); one lookup per MAX_USERS_PER_LOOKUP users. */
async function visitZones(
  uins: Uint32Array,
  defaultZone: string,
  zones: UserAttributeLookup | undefined,
  visit: (index: number, zone: string) => void,
): Promise<void> {
  if (zones === undefined) {
    for (let i = 0; i < uins.length; i++) visit(i, defaultZone);
    return;
  }
  for (let from = 0; from < uins.length; from += MAX_USERS_PER_LOOKUP) {
    const users = await zones.getUsers(uins.subarray(from, from + MAX_USERS_PER_LOOKUP));
    users.forEach((user, i) => visit(from + i, user?.tz ?? defaultZone));
  }
}

function mergeSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}
