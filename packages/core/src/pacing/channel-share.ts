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

/**
 * The part of the channel's budget one sender paces to when the senders
 * split it by demand (docs/delivery.md, "One budget per channel"): a
 * fraction in (0, 1], the fractions of all senders summing to 1 when they
 * see the same demands. `own` is this sender's demand (recipients waiting
 * on the channel), `peers` one entry per other live sender: its last
 * demand, or undefined when none was heard lately (it is counted at an even
 * share: it may be sending). Each known sender's part is in proportion to
 * its demand, but at least `floor` of an even share, so one whose work has
 * just come starts sending at once and says what it wants in its next
 * report. No demand anywhere: even shares.
 */
export function demandFraction(own: number, peers: readonly (number | undefined)[], floor: number): number {
  const demands = [own, ...peers];
  for (const [i, d] of demands.entries())
    if (!(d === undefined || (Number.isFinite(d) && d >= 0)))
      throw new ValidationError(`channel demand must be a number, at least 0 (got ${d})`, {
        field: 'demand',
        sender: i,
      });
  if (!(Number.isFinite(floor) && floor >= 0 && floor <= 1))
    throw new ValidationError(`channel demand floor must be between 0 and 1 (got ${floor})`, { field: 'floor' });
  const even = 1 / demands.length;
  const unknown = demands.filter((d) => d === undefined).length;
  const known = demands.reduce<number>((sum, d) => sum + (d ?? 0), 0);
  // The part the senders heard from share by demand: what the unheard ones' even shares leave.
  const heard = 1 - unknown * even;
  const raw = demands.map((d) =>
    d === undefined ? even : known === 0 ? even : Math.max((heard * d) / known, floor * even),
  );
  const total = raw.reduce((sum, r) => sum + r, 0);
  return raw[0]! / total;
}

/** A channel's limits scaled to one sender's fraction of them (`demandFraction`). */
export function fractionOfChannel(limits: ChannelLimits, fraction: number): ChannelLimits {
  checkChannelLimits(limits);
  if (!(Number.isFinite(fraction) && fraction > 0 && fraction <= 1))
    throw new ValidationError(`channel share must be above 0 and at most 1 (got ${fraction})`, {
      field: 'fraction',
      fraction,
    });
  return { minRate: limits.minRate * fraction, maxRate: limits.maxRate * fraction };
}

/** A cluster member as a process's membership sees it. */
export interface SeenMember {
  id: string;
  state: string;
}

/**
 * Which of the processes named `senderIds` send through the channel now:
 * those the membership sees in any state but OFFLINE (a member just joining
 * may send within seconds; a dead one's share goes to the rest once it is
 * OFFLINE), in the order of `senderIds`.
 */
export function liveSenderIds(members: Iterable<SeenMember>, senderIds: readonly string[]): string[] {
  const seen = new Set<string>();
  for (const { id, state } of members) if (state !== 'OFFLINE') seen.add(id);
  return senderIds.filter((id) => seen.has(id));
}

/** How many of `senderIds` send through the channel now (`liveSenderIds`); at least 1: the caller itself sends. */
export function liveSenders(members: Iterable<SeenMember>, senderIds: Iterable<string>): number {
  return Math.max(1, liveSenderIds(members, [...new Set(senderIds)]).length);
}

/** What a sender splitting by demand remembers of its last report (`partToApply`). */
export interface LastDemandReport {
  /** The part by demand it computed then. */
  fraction: number;
  /** The demand it told the other senders then. */
  told: number;
}

/**
 * The part of the budget a sender splitting by demand paces to now, given
 * `fraction` (its `demandFraction` at this report), `own` (the demand it
 * tells at this report) and `last` (its previous report; undefined at the
 * first, which starts from an even share among `senders`). A fall applies
 * at once. A rise that comes from this sender's own demand growing waits one
 * report: the others compute their parts from the demand it told, and until
 * they have heard the larger one and taken theirs down the parts would sum
 * past the budget. A rise with its own demand at most what it last told
 * comes from the others' demands falling (one that finished tells 0), and
 * each of them took its own part down when it told that: the room is
 * already free, so the rise applies at once (the part of a sender left alone
 * at the end of a broadcast, no longer a report later).
 */
export function partToApply(
  fraction: number,
  own: number,
  last: LastDemandReport | undefined,
  senders: number,
): number {
  if (!(Number.isFinite(fraction) && fraction > 0 && fraction <= 1))
    throw new ValidationError(`channel share must be above 0 and at most 1 (got ${fraction})`, {
      field: 'fraction',
      fraction,
    });
  if (!(Number.isFinite(own) && own >= 0))
    throw new ValidationError(`channel demand must be a number, at least 0 (got ${own})`, { field: 'demand' });
  if (!(Number.isInteger(senders) && senders >= 1))
    throw new ValidationError(`channel senders must be a whole number, at least 1 (got ${senders})`, {
      field: 'senders',
      senders,
    });
  if (last === undefined) return Math.min(fraction, 1 / senders);
  if (own <= last.told) return fraction;
  return Math.min(fraction, last.fraction);
}
