/*
 * Quiet hours on the executors (docs/local-time.md, "Quiet hours"): what the
 * dispatcher's planning cannot see, judged per recipient at the moment of
 * sending and at login, in the recipient's own zone (their `tz`, or the
 * task's default zone, UTC without one). Zones are judged once each per
 * batch: a batch's users share a few dozen.
 */
import { MAX_USERS_PER_LOOKUP, type UserAttributeLookup } from '@herald/core/ports';
import type { Task } from '@herald/core/task';
import { isQuietAt, type QuietHours } from '@herald/core/time';

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
  const flagOf = (zone: string) => {
    let flag = judged.get(zone);
    if (flag === undefined) judged.set(zone, (flag = isQuietAt(zone, quiet, now) ? 1 : 0));
    return flag;
  };
  const flags = new Uint8Array(uins.length);
  if (zones === undefined) return flags.fill(flagOf(defaultZone));
  for (let from = 0; from < uins.length; from += MAX_USERS_PER_LOOKUP) {
    const users = await zones.getUsers(uins.subarray(from, from + MAX_USERS_PER_LOOKUP));
    users.forEach((user, i) => {
      flags[from + i] = flagOf(user?.tz ?? defaultZone);
    });
  }
  return flags;
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
