import { canaryFraction, inCanarySample, rolloutPoint, variantIndexOf } from './assign';

/** The placement of recipients (docs/rollouts.md "Who gets what"): sizes, independence and stability. */
describe('rollout assignment', () => {
  const N = 1_000_000;

  it('splits 10^6 uins into variant shares and a holdout within 1% of their configured sizes', () => {
    const shares = [{ share: 0.45 }, { share: 0.3 }, { share: 0.15 }];
    const holdout = 0.1;
    const counts = [0, 0, 0];
    let held = 0;
    for (let uin = 1; uin <= N; uin++) {
      const i = variantIndexOf(uin, 0xc0ffee, shares, holdout);
      if (i < 0) held++;
      else counts[i]!++;
    }
    shares.forEach(({ share }, i) => expect(Math.abs(counts[i]! - share * N)).toBeLessThan(0.01 * share * N));
    expect(Math.abs(held - holdout * N)).toBeLessThan(0.01 * holdout * N);
  });

  it('draws a canary sample within 1% of its size at 10^6, independent of the variant split', () => {
    const fraction = canaryFraction('5%', N);
    let sampled = 0;
    let sampledInFirstVariant = 0;
    for (let uin = 1; uin <= N; uin++) {
      if (!inCanarySample(uin, 77, fraction)) continue;
      sampled++;
      if (variantIndexOf(uin, 77, [{ share: 0.5 }, { share: 0.5 }]) === 0) sampledInFirstVariant++;
    }
    expect(Math.abs(sampled - 0.05 * N)).toBeLessThan(0.01 * 0.05 * N);
    // Were the sample one end of the variant interval, nearly all of it would be in one variant.
    expect(Math.abs(sampledInFirstVariant - sampled / 2)).toBeLessThan(0.02 * sampled);
  });

  it('places a uin the same way every time and differently under another seed', () => {
    expect(rolloutPoint(123456, 9)).toBe(rolloutPoint(123456, 9));
    let moved = 0;
    for (let uin = 1; uin <= 1000; uin++) if (rolloutPoint(uin, 9) !== rolloutPoint(uin, 10)) moved++;
    expect(moved).toBeGreaterThan(990);
    for (let uin = 0; uin < 1000; uin++) {
      const point = rolloutPoint(uin * 4_000_037, 3);
      expect(point).toBeGreaterThanOrEqual(0);
      expect(point).toBeLessThan(1);
    }
  });

  it('sizes a count sample over the audience, all of it when the count exceeds it', () => {
    expect(canaryFraction(10_000, 1_000_000)).toBe(0.01);
    expect(canaryFraction(10_000, 5_000)).toBe(1);
    expect(canaryFraction('0.5%', 10)).toBe(0.005);
  });

  it('gives a point past the shares floating-point sum to the last variant when there is no holdout', () => {
    const thirds = [{ share: 1 / 3 }, { share: 1 / 3 }, { share: 1 / 3 }];
    for (let uin = 1; uin <= 10_000; uin++) expect(variantIndexOf(uin, 1, thirds)).toBeGreaterThanOrEqual(0);
  });
});
