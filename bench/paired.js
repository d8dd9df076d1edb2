/**
 * What one side of an A/B benchmark costs over the other, from runs taken in
 * pairs (each pair A then B or B then A, back to back in one process).
 *
 * Why pairs and not best-of: on this 2-core machine one broadcast's phase
 * times spread wide (the 10^7 sending phase falls near 0.7 s or near 1.1 s
 * from run to run, either side), so the minimum of each side is the luck of
 * one run. The ratio within a pair shares that pair's machine state; the
 * median of those ratios, with a bootstrap interval, says what the change
 * costs and how sure the figure is.
 */
const { seededRandom } = require('@herald/core');

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The cost of A over B as a percentage (positive: A is slower), from
 * `a[i]` and `b[i]` taken as pair i: the median of the pairs' ratios and its
 * 95% bootstrap interval (`resamples` draws of the pairs with replacement).
 */
function pairedCostPercent(a, b, { resamples = 4000, seed = 1 } = {}) {
  if (a.length !== b.length || a.length === 0) throw new Error('paired samples need the same, non-zero, count');
  const ratios = a.map((x, i) => x / b[i]);
  const random = seededRandom(seed);
  const medians = [];
  for (let r = 0; r < resamples; r++) {
    const draw = ratios.map(() => ratios[Math.floor(random() * ratios.length)]);
    medians.push(median(draw));
  }
  medians.sort((x, y) => x - y);
  const pct = (ratio) => Number((100 * (ratio - 1)).toFixed(1));
  return {
    pairs: ratios.length,
    median: pct(median(ratios)),
    low95: pct(medians[Math.floor(0.025 * resamples)]),
    high95: pct(medians[Math.ceil(0.975 * resamples) - 1]),
    aFasterInPairs: ratios.filter((r) => r < 1).length,
  };
}

module.exports = { pairedCostPercent, median };
