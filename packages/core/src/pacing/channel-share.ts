import { ValidationError } from '../errors';

/** A channel's rate bounds, changeable at run time (ChannelPacing's `setLimits`). */
export interface ChannelLimits {
  minRate: number;
  maxRate: number;
}

/**
 * One channel budget for every executor sending through the channel
 * (docs/delivery.md, "One budget per channel"). The configured limits
 * (`delivery.<kind>.pacing`, or an admin's at run time) are the channel's
 * whole budget; each process that sends through the channel paces to its
 * share of them, and its AIMD moves between the shared bounds. Every task
 * and executor in one process already shares that process's one pacing; the
 * split is between processes.
 */

/** Checks a channel's rate bounds: both finite and above 0, minRate at most maxRate. */
export function checkChannelLimits(limits: ChannelLimits): void {
  for (const name of ['minRate', 'maxRate'] as const) {
    if (!(Number.isFinite(limits[name]) && limits[name] > 0))
      throw new ValidationError(`channel pacing ${name} must be a finite number above 0 (got ${limits[name]})`, {
        field: name,
        [name]: limits[name],
      });
  }
  if (limits.minRate > limits.maxRate)
    throw new ValidationError(
      `channel pacing minRate must be at most maxRate (got ${limits.minRate}, ${limits.maxRate})`,
      { field: 'minRate', minRate: limits.minRate, maxRate: limits.maxRate },
    );
}

/**
 * The part of a channel's limits one of `senders` processes paces to: both
 * bounds divided evenly, so the senders' rates together stay within the
 * channel's. Even, not by load: a process with no batch in hand leaves its
 * share unused, which errs on the side of the channel (never over its limit).
 */
export function shareOfChannel(limits: ChannelLimits, senders: number): ChannelLimits {
  checkChannelLimits(limits);
  if (!(Number.isInteger(senders) && senders >= 1))
    throw new ValidationError(`channel senders must be a whole number, at least 1 (got ${senders})`, {
      field: 'senders',
      senders,
    });
  return { minRate: limits.minRate / senders, maxRate: limits.maxRate / senders };
}

/** A cluster member as a process's membership sees it. */
export interface SeenMember {
  id: string;
  state: string;
}

/**
 * How many of the processes named `senderIds` send through the channel now:
 * those the membership sees in any state but OFFLINE (a member just joining
 * may send within seconds; a dead one's share goes to the rest once it is
 * OFFLINE). At least 1: the caller itself sends.
 */
export function liveSenders(members: Iterable<SeenMember>, senderIds: Iterable<string>): number {
  const senders = new Set(senderIds);
  let live = 0;
  for (const { id, state } of members) if (senders.has(id) && state !== 'OFFLINE') live++;
  return Math.max(1, live);
}
