/*
 * Frequency windows on each user's own local day (docs/frequency.md, "Time
 * zones"). A user with a `tz` attribute (an IANA name or '+HH:MM') counts
 * days, and has their slots released, by their own wall clock, with the
 * offset in force at the instant judged (so daylight saving is followed); a
 * user without one keeps the policy's fixed `utcOffsetMinutes`.
 *
 * Cheap on the hot path: a batch's users share a handful of offsets, so the
 * clocks are built once per distinct offset (ReleaseClockTable) and each
 * user costs a table read and, as before, at most one hash.
 */
import { ValidationError } from '../errors';
import { zoneOffsetMinutes } from '../time/local-time';
import { isSortedUint32 } from '../uins/sorted-set';
import type { FrequencyFilterResult } from './filter';
import type { FrequencyPolicy } from './policy';
import { checkUin, releaseClock, releaseClockAtOffset, releasedAt, type ReleaseClock } from './release';

const MS_PER_MINUTE = 60_000;

/** The release clock of a user whose zone is `zone` (their `tz`), or of the policy's fixed offset without one. */
export function userReleaseClock(policy: FrequencyPolicy, zone: string | undefined, now: number): ReleaseClock {
  if (zone === undefined) return releaseClock(policy, now);
  return releaseClockAtOffset(policy, zoneOffsetMinutes(zone, now) * MS_PER_MINUTE, now);
}

/** The user's local day number at `now`: the day their count belongs to (counter.used / consume). */
export function userDayOf(policy: FrequencyPolicy, zone: string | undefined, now: number): number {
  return userReleaseClock(policy, zone, now).day;
}

/** budget() on the user's own local day: released slots so far today in their zone, less those used. */
export function userBudget(
  policy: FrequencyPolicy,
  zone: string | undefined,
  uin: number,
  usedToday: number,
  now: number,
): number {
  checkUin(uin);
  if (!Number.isSafeInteger(usedToday) || usedToday < 0)
    throw new ValidationError(`frequency: usedToday must be a non-negative integer (got ${usedToday})`, {
      used: usedToday,
    });
  return Math.max(0, releasedAt(userReleaseClock(policy, zone, now), uin) - usedToday);
}

/**
 * The release clocks of one instant, one per distinct UTC offset: index 0 is
 * the policy's fixed offset (users without a zone). At most 65,536 offsets
 * (a batch's clock indexes are a Uint16Array); the world has about 40.
 */
export class ReleaseClockTable {
  readonly clocks: ReleaseClock[] = [];
  private readonly byOffset = new Map<number, number>();
  /** Each zone's offset is looked up once (an IANA zone's costs an Intl call). */
  private readonly byZone = new Map<string, number>();

  constructor(
    private readonly policy: FrequencyPolicy,
    readonly now: number,
  ) {
    this.ofOffset(policy.offsetMs);
  }

  /** The index of the clock of a user in `zone` (undefined: no zone, the fixed offset). */
  indexOf(zone: string | undefined): number {
    if (zone === undefined) return 0;
    let at = this.byZone.get(zone);
    if (at === undefined) {
      at = this.ofOffset(zoneOffsetMinutes(zone, this.now) * MS_PER_MINUTE);
      this.byZone.set(zone, at);
    }
    return at;
  }

  /** The distinct local days the clocks are on: at most three at one instant (offsets span -12:00..+14:00). */
  days(): number[] {
    return [...new Set(this.clocks.map((clock) => clock.day))];
  }

  private ofOffset(offsetMs: number): number {
    let at = this.byOffset.get(offsetMs);
    if (at === undefined) {
      at = this.clocks.length;
      this.clocks.push(releaseClockAtOffset(this.policy, offsetMs, this.now));
      this.byOffset.set(offsetMs, at);
    }
    return at;
  }
}

/**
 * withinBudget with each user on their own clock: `clockAt[i]` indexes
 * `clocks` for uins[i], and `usedToday[i]` is what uins[i] used on that
 * clock's day. Same answer as withinBudget when every user has the same clock.
 */
export function withinZonedBudget(
  sortedUins: Uint32Array,
  usedToday: ArrayLike<number>,
  clocks: readonly ReleaseClock[],
  clockAt: ArrayLike<number>,
): FrequencyFilterResult {
  if (!(sortedUins instanceof Uint32Array)) throw new ValidationError('frequency filter: uins must be a Uint32Array');
  if (!isSortedUint32(sortedUins)) throw new ValidationError('frequency filter: uins must be sorted ascending');
  if (usedToday.length !== sortedUins.length || clockAt.length !== sortedUins.length)
    throw new ValidationError(
      `frequency filter: ${usedToday.length} counts and ${clockAt.length} clocks for ${sortedUins.length} uins (one each per uin, same order)`,
      { uins: sortedUins.length, counts: usedToday.length, clocks: clockAt.length },
    );
  const kept = new Uint32Array(sortedUins.length);
  let n = 0;
  for (let i = 0; i < sortedUins.length; i++) {
    const uin = sortedUins[i]!;
    const used = usedToday[i]!;
    const clock = clocks[clockAt[i]!];
    if (clock === undefined)
      throw new ValidationError(`frequency filter: clock ${clockAt[i]} of uin ${uin} does not exist`, { index: i });
    if (!Number.isSafeInteger(used) || used < 0)
      throw new ValidationError(`frequency filter: count ${i} is not a non-negative integer (got ${used})`, {
        index: i,
      });
    // releasedAt is closed or closed + 1: only a user who used exactly `closed` needs the hash.
    if (used < clock.closed || (used === clock.closed && releasedAt(clock, uin) > used)) kept[n++] = uin;
  }
  return { kept: kept.slice(0, n), overFrequency: sortedUins.length - n };
}
