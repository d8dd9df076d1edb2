import { seededRandom } from '@herald/core';

/**
 * A synthetic audience for demos, end-to-end tests and benchmarks: a shuffled
 * recipient list with some duplicates, a blacklist that hits part of it, and
 * an online subset, all from a seeded PRNG so a run can be repeated exactly.
 * Uins are spread over the uin space roughly as real account numbers are:
 * increasing with random gaps from `uinBase`.
 */
export interface SyntheticAudienceOptions {
  recipients: number;
  /** Share of distinct recipients online, 0..1. */
  onlineFraction: number;
  /** Share of list entries that repeat an earlier one. Default 0.02. */
  duplicateFraction?: number;
  /** Share of distinct recipients that are blacklisted. Default 0.01. */
  blacklistFraction?: number;
  uinLimit: number;
  seed?: number;
}

export interface SyntheticAudience {
  /** The list as uploaded: shuffled, with duplicates. */
  list: Uint32Array;
  /** Distinct recipients, ascending. */
  distinct: Uint32Array;
  /** Blacklisted uins, ascending; some are in the list, some are not. */
  blacklist: Uint32Array;
  /** Online recipients, ascending (a subset of distinct). */
  online: Uint32Array;
}

export function syntheticAudience(options: SyntheticAudienceOptions): SyntheticAudience {
  const random = seededRandom(options.seed ?? 1);
  const n = options.recipients;
  const duplicates = Math.floor(n * (options.duplicateFraction ?? 0.02));
  const distinctCount = n - duplicates;
  const base = Math.min(10_000, Math.floor(options.uinLimit / 4));
  // Half the blacklist lies outside the list: room for it above the list's uins.
  const extraBlacklist = Math.ceil((distinctCount * (options.blacklistFraction ?? 0.01)) / 2);
  const room = options.uinLimit - base - extraBlacklist;
  if (distinctCount + extraBlacklist > room)
    throw new RangeError(`${n} recipients do not fit in a uin space of ${options.uinLimit}`);
  const meanGap = Math.max(1, Math.min(40, Math.floor(room / Math.max(1, distinctCount + extraBlacklist))));

  const distinct = new Uint32Array(distinctCount);
  let uin = base;
  for (let i = 0; i < distinctCount; i++) {
    distinct[i] = uin;
    uin += 1 + Math.floor(random() * (2 * meanGap - 1));
  }
  const list = new Uint32Array(n);
  list.set(distinct);
  for (let i = distinctCount; i < n; i++) list[i] = distinct[Math.floor(random() * distinctCount)]!;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    const t = list[i]!;
    list[i] = list[j]!;
    list[j] = t;
  }

  const blacklistInList = Math.floor(distinctCount * (options.blacklistFraction ?? 0.01)) - extraBlacklist;
  const blacklist: number[] = [];
  const step = blacklistInList > 0 ? distinctCount / blacklistInList : Infinity;
  for (let k = 0; k < blacklistInList; k++) blacklist.push(distinct[Math.floor(k * step)]!);
  for (let k = 0; k < extraBlacklist; k++) blacklist.push(uin + k);

  const online: number[] = [];
  for (let i = 0; i < distinctCount; i++) if (random() < options.onlineFraction) online.push(distinct[i]!);
  return { list, distinct, blacklist: Uint32Array.from(blacklist), online: Uint32Array.from(online) };
}
