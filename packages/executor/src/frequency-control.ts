import {
  MAX_USERS_PER_LOOKUP,
  type FrequencyCounter,
  type FrequencyUse,
  type UserAttributeLookup,
} from '@herald/core/ports';
import { ReleaseClockTable, userBudget, userDayOf, type FrequencyPolicy } from '@herald/core/frequency';

/**
 * Frequency control as an executor sees it (docs/frequency.md): the policy
 * that says which of a user's slots are released, and the counter shared
 * with every dispatcher and executor. Present only with `frequency.enabled`.
 */
export interface FrequencyControl {
  policy: FrequencyPolicy;
  counter: FrequencyCounter;
  /**
   * Users' attributes, for their `tz`: a user with one is counted on their
   * own local day, as the dispatcher's filter judged them. Without it, every
   * user is on the policy's fixed `utcOffsetMinutes`.
   */
  zones?: UserAttributeLookup;
}

/**
 * The uses one delivery of `taskId` to `sortedUins` at `now` counts: the
 * users split by their own local day (at most three at one instant), each
 * part still sorted. One attribute lookup per MAX_USERS_PER_LOOKUP users.
 */
export async function usesOf(
  control: FrequencyControl,
  taskId: number,
  sortedUins: Uint32Array,
  now: number,
): Promise<FrequencyUse[]> {
  const clocks = new ReleaseClockTable(control.policy, now);
  if (control.zones === undefined) return [{ taskId, day: clocks.clocks[0]!.day, uins: sortedUins }];
  const dayAt = new Float64Array(sortedUins.length);
  for (let from = 0; from < sortedUins.length; from += MAX_USERS_PER_LOOKUP) {
    const users = await control.zones.getUsers(sortedUins.subarray(from, from + MAX_USERS_PER_LOOKUP));
    users.forEach((user, i) => {
      dayAt[from + i] = clocks.clocks[clocks.indexOf(user?.tz ?? undefined)]!.day;
    });
  }
  return clocks
    .days()
    .map((day) => ({ taskId, day, uins: sortedUins.filter((_, i) => dayAt[i] === day) }))
    .filter((use) => use.uins.length > 0);
}

/** One user's zone (their `tz`), or undefined without one or without a lookup. */
export async function zoneOfUser(control: FrequencyControl, uin: number): Promise<string | undefined> {
  if (control.zones === undefined) return undefined;
  const [user] = await control.zones.getUsers([uin]);
  return user?.tz ?? undefined;
}

/** The user's released, unused slots at `now`, and the local day (in their zone) they belong to. */
export async function slotsLeftAt(
  control: FrequencyControl,
  uin: number,
  now: number,
): Promise<{ day: number; left: number }> {
  const zone = await zoneOfUser(control, uin);
  const day = userDayOf(control.policy, zone, now);
  const [used] = await control.counter.used(Uint32Array.of(uin), day);
  return { day, left: userBudget(control.policy, zone, uin, used!, now) };
}
