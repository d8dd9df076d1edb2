import type { CanarySample, RolloutVariant } from './model';
import { fmix32 } from '../ring/murmur3';

/**
 * Deterministic placement of recipients (docs/rollouts.md, "Who gets what"):
 * a uin and the task's seed hash to a point in [0, 1); the canary sample and
 * the variant shares are intervals of it. The same uin and seed give the same
 * point in every process, so the placement survives retries, recovery and
 * failover without being stored. The canary uses a differently salted point,
 * so its sample is independent of the variant split.
 */

/** The uin's point in [0, 1) under `seed`. */
export function rolloutPoint(uin: number, seed: number): number {
  return fmix32((fmix32(seed >>> 0) ^ fmix32((uin >>> 0) + 0x9e3779b9)) >>> 0) / 4294967296;
}

/** Salts the seed of the canary's point, so the sample is not one end of the variant split. */
const CANARY_SALT = 0x5bd1e995;

/** The share of the kept audience in the sample: a percent as given, a count over the audience (at most all of it). */
export function canaryFraction(sample: CanarySample, kept: number): number {
  if (typeof sample === 'string') return Number(sample.slice(0, -1)) / 100;
  return kept <= 0 ? 1 : Math.min(1, sample / kept);
}

/** Whether the uin is in the canary sample of a task with this seed, the sample being `fraction` of the audience. */
export function inCanarySample(uin: number, seed: number, fraction: number): boolean {
  return rolloutPoint(uin, (seed ^ CANARY_SALT) >>> 0) < fraction;
}

/**
 * The variant a uin gets: its index in `variants`, or -1 for the holdout.
 * The holdout is the top of the interval, [1 - holdout, 1); the variants
 * share the rest in order. Shares add up to 1 - holdout only within
 * SHARE_TOLERANCE, so a point past the last share's floating-point end goes to
 * the last variant, never to a holdout of zero.
 */
export function variantIndexOf(
  uin: number,
  seed: number,
  variants: readonly Pick<RolloutVariant, 'share'>[],
  holdout = 0,
): number {
  const point = rolloutPoint(uin, seed);
  if (holdout > 0 && point >= 1 - holdout) return -1;
  let upTo = 0;
  for (let i = 0; i < variants.length - 1; i++) {
    upTo += variants[i]!.share;
    if (point < upTo) return i;
  }
  return variants.length - 1;
}
