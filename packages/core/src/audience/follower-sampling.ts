/**
 * Whether a local copy of an account's followers may be used instead of the
 * source of truth (docs/audience-sources.md, "Local copies"): 10 samples, each of followers / 10^4 uins clamped to
 * [100, 10000], compared with the source of truth; the copy is used only if
 * the mean error rate is below 2% and no sample's exceeds 10%. Pure: the
 * adapter draws the samples and reads both sides.
 */

export const FOLLOWER_SAMPLING = {
  samples: 10,
  minSize: 100,
  maxSize: 10_000,
  /** One sample's size is followers / divisor, clamped. */
  divisor: 10_000,
  /** Use the copy only if the mean error rate is below this... */
  meanErrorBelow: 0.02,
  /** ...and no sample's error rate exceeds this. */
  sampleErrorAtMost: 0.1,
} as const;

/** The size of one sample for an account of `followers` followers. */
export function followerSampleSize(followers: number): number {
  const size = Math.floor(Math.max(0, followers) / FOLLOWER_SAMPLING.divisor);
  return Math.min(FOLLOWER_SAMPLING.maxSize, Math.max(FOLLOWER_SAMPLING.minSize, size));
}

/**
 * The error rate of one sample: the uins the copy and the truth disagree on
 * (in one and not the other) over the uins either holds, for one stretch of
 * the uin space read from both. Both ascending and duplicate-free. Two empty
 * sides agree (0).
 */
export function sampleErrorRate(copy: Uint32Array, truth: Uint32Array): number {
  let i = 0;
  let j = 0;
  let both = 0;
  while (i < copy.length && j < truth.length) {
    if (copy[i] === truth[j]) {
      both++;
      i++;
      j++;
    } else if (copy[i]! < truth[j]!) i++;
    else j++;
  }
  const union = copy.length + truth.length - both;
  return union === 0 ? 0 : (union - both) / union;
}

export interface SamplingVerdict {
  usable: boolean;
  mean: number;
  worst: number;
  rates: number[];
}

/** The rule over the samples' error rates. No sample at all is not usable. */
export function judgeFollowerSamples(rates: readonly number[]): SamplingVerdict {
  if (rates.length === 0) return { usable: false, mean: 1, worst: 1, rates: [] };
  const mean = rates.reduce((sum, rate) => sum + rate, 0) / rates.length;
  const worst = Math.max(...rates);
  // A hair of tolerance: ten samples of exactly 2% sum to a mean a rounding error under 2%.
  const EPSILON = 1e-9;
  const usable =
    mean < FOLLOWER_SAMPLING.meanErrorBelow - EPSILON && worst <= FOLLOWER_SAMPLING.sampleErrorAtMost + EPSILON;
  return { usable, mean, worst, rates: [...rates] };
}
