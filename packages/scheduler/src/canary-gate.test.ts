import { breachOf } from './canary-gate';

/** How a canary's sample is judged (docs/rollouts.md, "How it runs"): the words a paused task's error carries. */
describe('breachOf', () => {
  const canary = { sample: 1000, state: 'sampling' as const, holdUntil: 0 };
  const thresholds = { rejectedRatio: 0.05, failedRatio: 0.1 };

  it('passes a sample at or under both thresholds', () => {
    expect(breachOf(canary, thresholds, { rejectedRatio: 0.05, failedRatio: 0.1 })).toBeUndefined();
    expect(breachOf(canary, thresholds, { rejectedRatio: 0, failedRatio: 0 })).toBeUndefined();
  });

  it('names the rejected ratio, the sample and the threshold when rejections go over', () => {
    expect(breachOf(canary, thresholds, { rejectedRatio: 0.3012, failedRatio: 0 })).toBe(
      "the channel rejected 30.12% of the canary's 1000 recipients (threshold 5.00%)",
    );
  });

  it('names the failed ratio when the channel had not taken enough of the sample by the end of the hold', () => {
    expect(breachOf(canary, thresholds, { rejectedRatio: 0, failedRatio: 0.25 })).toBe(
      "25.00% of the canary's 1000 recipients were still not confirmed when its hold ended (threshold 10.00%)",
    );
  });
});
