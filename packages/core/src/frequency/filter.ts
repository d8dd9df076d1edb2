import { ValidationError } from '../errors';
import { isSortedUint32 } from '../uins/sorted-set';
import type { FrequencyPolicy } from './policy';
import { releaseClock, releasedAt } from './release';

/** What the frequency filter kept and how many it removed (the report's `over_frequency`). */
export interface FrequencyFilterResult {
  /** The uins still within budget, ascending, a subset of the input. */
  readonly kept: Uint32Array;
  readonly overFrequency: number;
}

/**
 * The pure half of the frequency filter for one sorted batch of recipients.
 * The adapter half reads the counts in one call, then asks this:
 *
 *   const day = dayOf(policy, now);
 *   const used = await counter.used(uins, day);
 *   const { kept, overFrequency } = withinBudget(policy, uins, used, now);
 *
 * `usedToday[i]` is what uins[i] has used on the local day of `now`. A user
 * is kept when budget(policy, uin, usedToday, now) > 0; each decision costs
 * at most one hash, the day's window maths being done once per batch.
 * Duplicates in the batch are judged independently (each gets the same
 * answer); the caller dedupes first if it must.
 */
export function withinBudget(
  policy: FrequencyPolicy,
  sortedUins: Uint32Array,
  usedToday: ArrayLike<number>,
  now: number,
): FrequencyFilterResult {
  if (!(sortedUins instanceof Uint32Array)) throw new ValidationError('frequency filter: uins must be a Uint32Array');
  if (!isSortedUint32(sortedUins)) throw new ValidationError('frequency filter: uins must be sorted ascending');
  if (usedToday.length !== sortedUins.length) {
    throw new ValidationError(
      `frequency filter: ${usedToday.length} counts for ${sortedUins.length} uins (one count per uin, same order)`,
      {
        uins: sortedUins.length,
        counts: usedToday.length,
      },
    );
  }
  const clock = releaseClock(policy, now);
  const kept = new Uint32Array(sortedUins.length);
  let n = 0;
  for (let i = 0; i < sortedUins.length; i++) {
    const uin = sortedUins[i]!;
    const used = usedToday[i]!;
    if (!Number.isSafeInteger(used) || used < 0)
      throw new ValidationError(`frequency filter: count ${i} is not a non-negative integer (got ${used})`, {
        index: i,
      });
    // releasedAt is closed or closed + 1: only a user who used exactly `closed` needs the hash.
    if (used < clock.closed || (used === clock.closed && releasedAt(clock, uin) > used)) kept[n++] = uin;
  }
  return { kept: kept.slice(0, n), overFrequency: sortedUins.length - n };
}
