import { ValidationError } from '../errors';
import { murmur3 } from '../ring/murmur3';
import { MS_PER_DAY, type CompetitionWindowOfDay, type FrequencyPolicy } from './policy';

/**
 * When each of a user's daily slots is released (docs/frequency.md). Pure
 * functions of (policy, uin, day, slot) and an injected `now`: nothing per
 * user is stored, every process computes the same times.
 *
 * Slot s of day d for user u is released at
 *
 *   dayStart(d) + window(s).fromMs + floor(murmur3("u/d/s", FREQUENCY_HASH_SEED) / 2^32 * window(s).length)
 *
 * so inside [window start, window end), uniformly spread over users, and
 * different for each (user, day, slot). `day` is the local day number: whole
 * days since 1970-01-01 00:00 in the policy's UTC offset.
 */

/** Keeps slot times independent of ring placement (which hashes with seed 0). Changing it reshuffles every release time. */
export const FREQUENCY_HASH_SEED = 0x66726571; // 'freq'

/** A competition window on the clock: the slot it releases, [opensAt, closesAt) in epoch ms. */
export interface CompetitionWindow {
  readonly day: number;
  readonly slot: number;
  readonly opensAt: number;
  readonly closesAt: number;
}

/** The local day number of epoch-ms `now`. */
export function dayOf(policy: FrequencyPolicy, now: number): number {
  checkTime(now);
  return Math.floor((now + policy.offsetMs) / MS_PER_DAY);
}

/** Epoch ms of the local midnight that starts `day`. */
export function dayStartsAt(policy: FrequencyPolicy, day: number): number {
  checkDay(day);
  return day * MS_PER_DAY - policy.offsetMs;
}

/** Epoch ms at which each of the user's slots of `day` is released, by slot (ascending). */
export function slotReleaseTimes(policy: FrequencyPolicy, uin: number, day: number): number[] {
  checkUin(uin);
  const start = dayStartsAt(policy, day);
  return policy.windows.map((w) => start + releaseOffset(w, uin, day));
}

/** How many of the user's slots of the current local day are released at `now` (release time <= now). */
export function releasedSlots(policy: FrequencyPolicy, uin: number, now: number): number {
  checkUin(uin);
  return releasedAt(releaseClock(policy, now), uin);
}

/**
 * How many more broadcasts the user may receive at `now`: the slots released
 * so far today minus those used today, never below 0. An unused slot stays
 * available for the rest of the day (it carries over from window to window);
 * at local midnight the count starts again from the new day's releases, so
 * nothing carries over from one day to the next.
 */
export function budget(policy: FrequencyPolicy, uin: number, usedToday: number, now: number): number {
  checkUsed(usedToday);
  return Math.max(0, releasedSlots(policy, uin, now) - usedToday);
}

/** The competition window holding `now`, or undefined in a gap between configured windows. Tasks compete only inside one. */
export function windowAt(policy: FrequencyPolicy, now: number): CompetitionWindow | undefined {
  const clock = releaseClock(policy, now);
  if (clock.current === undefined) return undefined;
  return {
    day: clock.day,
    slot: clock.current.slot,
    opensAt: clock.dayStart + clock.current.fromMs,
    closesAt: clock.dayStart + clock.current.toMs,
  };
}

/**
 * Where `now` falls in its local day, computed once for a whole batch of
 * users: the windows already closed (their slots are released for everyone)
 * and the one open now (its slot is released for some users only).
 */
export interface ReleaseClock {
  readonly now: number;
  readonly day: number;
  readonly dayStart: number;
  /** Windows closed at `now`: their slots are released whoever the user is. */
  readonly closed: number;
  readonly current: CompetitionWindowOfDay | undefined;
}

export function releaseClock(policy: FrequencyPolicy, now: number): ReleaseClock {
  return releaseClockAtOffset(policy, policy.offsetMs, now);
}

/**
 * The release clock of a local day whose wall clock runs `offsetMs` ahead of
 * UTC at `now`: the policy's fixed offset, or a user's zone's offset in force
 * at `now` (frequency/zoned.ts). Only the offset at `now` matters: the day is
 * the wall-clock date, and a window's release compares wall-clock times, so
 * on a daylight-saving day a release in the skipped hour comes at its end.
 */
export function releaseClockAtOffset(policy: FrequencyPolicy, offsetMs: number, now: number): ReleaseClock {
  checkTime(now);
  const day = Math.floor((now + offsetMs) / MS_PER_DAY);
  const dayStart = day * MS_PER_DAY - offsetMs;
  const sinceMidnight = now - dayStart;
  let closed = 0;
  let current: CompetitionWindowOfDay | undefined;
  for (const w of policy.windows) {
    if (w.toMs <= sinceMidnight) closed++;
    else {
      if (w.fromMs <= sinceMidnight) current = w;
      break;
    }
  }
  return { now, day, dayStart, closed, current };
}

/** Released slots for one user at the clock's `now`: one hash at most. The uin must already be checked. */
export function releasedAt(clock: ReleaseClock, uin: number): number {
  const { current } = clock;
  if (current === undefined) return clock.closed;
  return clock.dayStart + releaseOffset(current, uin, clock.day) <= clock.now ? clock.closed + 1 : clock.closed;
}

/** ms from local midnight to the release of the window's slot for this user and day. */
function releaseOffset(w: CompetitionWindowOfDay, uin: number, day: number): number {
  const fraction = murmur3(`${uin}/${day}/${w.slot}`, FREQUENCY_HASH_SEED) / 2 ** 32;
  return w.fromMs + Math.floor(fraction * (w.toMs - w.fromMs));
}

export function checkUin(uin: number): void {
  if (!Number.isInteger(uin) || uin < 0 || uin > 0xffffffff)
    throw new ValidationError(`frequency: uin must be an integer in [0, 2^32) (got ${uin})`, { uin });
}

function checkTime(now: number): void {
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new ValidationError(`frequency: now must be a finite number of epoch ms (got ${now})`, { now });
}

/** Local day numbers: safe integers (negative only before 1970). */
function checkDay(day: number): void {
  if (!Number.isSafeInteger(day))
    throw new ValidationError(`frequency: day must be an integer day number (got ${day})`, { day });
}

function checkUsed(used: number): void {
  if (!Number.isSafeInteger(used) || used < 0)
    throw new ValidationError(`frequency: usedToday must be a non-negative integer (got ${used})`, { used });
}
