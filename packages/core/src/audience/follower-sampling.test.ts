import { followerSampleSize, judgeFollowerSamples, sampleErrorRate } from './follower-sampling';

describe('follower copy sampling', () => {
  it.each([
    [0, 100],
    [999_999, 100],
    [10 ** 7, 1000],
    [10 ** 8, 10_000],
    [10 ** 9, 10_000],
  ])('a sample of an account of %i followers holds %i uins', (followers, size) => {
    expect(followerSampleSize(followers)).toBe(size);
  });

  it('counts disagreements over the uins either side holds', () => {
    expect(sampleErrorRate(Uint32Array.of(1, 2, 3, 4), Uint32Array.of(1, 2, 3, 4))).toBe(0);
    expect(sampleErrorRate(Uint32Array.of(1, 2, 3, 4), Uint32Array.of(1, 2, 3, 5))).toBe(2 / 5);
    expect(sampleErrorRate(Uint32Array.of(), Uint32Array.of(7))).toBe(1);
    expect(sampleErrorRate(Uint32Array.of(), Uint32Array.of())).toBe(0);
  });

  it('uses the copy only with a mean under 2% and no sample over 10%', () => {
    expect(judgeFollowerSamples(Array(10).fill(0.019)).usable).toBe(true);
    expect(judgeFollowerSamples(Array(10).fill(0.02)).usable).toBe(false);
    expect(judgeFollowerSamples([0.1, ...Array(9).fill(0)]).usable).toBe(true);
    expect(judgeFollowerSamples([0.11, ...Array(9).fill(0)]).usable).toBe(false);
    expect(judgeFollowerSamples([])).toMatchObject({ usable: false });
  });
});
