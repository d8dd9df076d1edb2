import { ValidationError } from '../errors';
import { applyTaskPatch, newTaskRecord } from '../task/validate';
import { canaryBreach, clickThroughOf, mergeEngagement, parseEngagement } from './engagement';
import { parseCanary } from './parse';

function fieldOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details.field;
  }
  throw new Error('expected a refusal');
}

const thresholds = { rejectedRatio: 0.05, failedRatio: 0.05, minClickThrough: 0.02 };

describe('click-through for canaries', () => {
  it('takes running totals and names the field of a bad report', () => {
    expect(parseEngagement({ clicks: 12 })).toEqual({ clicks: 12 });
    expect(parseEngagement({ clicks: 0, opens: 40 })).toEqual({ clicks: 0, opens: 40 });
    expect(fieldOf(() => parseEngagement({}))).toBe('clicks');
    expect(fieldOf(() => parseEngagement({ clicks: -1 }))).toBe('clicks');
    expect(fieldOf(() => parseEngagement({ clicks: 1.5 }))).toBe('clicks');
    expect(fieldOf(() => parseEngagement({ clicks: 1, opens: '2' }))).toBe('opens');
    expect(fieldOf(() => parseEngagement({ clicks: 1, views: 2 }))).toBe('views');
    expect(fieldOf(() => parseEngagement([1]))).toBe('body');
  });

  it('keeps the larger of each count, so a retry or a late smaller total never lowers it', () => {
    const first = mergeEngagement(undefined, { clicks: 10, reportedAt: 1 });
    expect(first).toEqual({ clicks: 10, reportedAt: 1 });
    expect(mergeEngagement(first, { clicks: 10, reportedAt: 5 })).toEqual(first);
    expect(mergeEngagement(first, { clicks: 7, opens: 30, reportedAt: 6 })).toEqual({
      clicks: 10,
      opens: 30,
      reportedAt: 6,
    });
    expect(mergeEngagement(first, { clicks: 15, reportedAt: 7 })).toEqual({ clicks: 15, reportedAt: 7 });
  });

  it("merges a report inside a task's update, and refuses a malformed one", () => {
    const task = newTaskRecord(
      1,
      {
        accountId: 'a',
        listId: 'l',
        content: { body: 'b' },
        contentCrc: 1,
        priority: 'normal',
        sendAt: 0,
        expiresAt: 10,
        listCount: 1,
      },
      0,
    );
    const once = applyTaskPatch(task, { report: { engagement: { clicks: 9, reportedAt: 3 } } });
    const lower = applyTaskPatch(once, { report: { engagement: { clicks: 4, reportedAt: 4 } } });
    expect(lower.report.engagement).toEqual({ clicks: 9, reportedAt: 3 });
    expect(() => applyTaskPatch(task, { report: { engagement: { clicks: -1, reportedAt: 3 } } })).toThrow(
      ValidationError,
    );
  });

  it('is judged only when reported and delivered: clicks over the online deliveries', () => {
    expect(clickThroughOf(undefined, 1000)).toBeUndefined();
    expect(clickThroughOf({ clicks: 5, reportedAt: 1 }, 0)).toBeUndefined();
    expect(clickThroughOf({ clicks: 5, reportedAt: 1 }, 1000)).toBe(0.005);
  });

  it('pauses below minClickThrough, after the rejection and failure thresholds, and never without a report', () => {
    const healthy = { rejectedRatio: 0, failedRatio: 0 };
    expect(canaryBreach(1000, thresholds, healthy)).toBeUndefined();
    expect(canaryBreach(1000, thresholds, { ...healthy, clickThrough: 0.02 })).toBeUndefined();
    expect(canaryBreach(1000, thresholds, { ...healthy, clickThrough: 0.005 })).toBe(
      "the canary's recipients clicked through at 0.50% of those delivered, of 1000 (minimum 2.00%)",
    );
    expect(canaryBreach(1000, thresholds, { rejectedRatio: 0.3, failedRatio: 0, clickThrough: 0 })).toMatch(
      /^the channel rejected 30.00%/,
    );
    const { minClickThrough: _unused, ...without } = thresholds;
    expect(canaryBreach(1000, without, { ...healthy, clickThrough: 0 })).toBeUndefined();
  });

  it('takes minClickThrough as a ratio in [0, 1] on a canary', () => {
    const canary = { sample: '1%', holdSeconds: 600, thresholds };
    expect(parseCanary(canary).thresholds).toEqual(thresholds);
    expect(fieldOf(() => parseCanary({ ...canary, thresholds: { ...thresholds, minClickThrough: 1.2 } }))).toBe(
      'canary.thresholds.minClickThrough',
    );
    expect(fieldOf(() => parseCanary({ ...canary, thresholds: { ...thresholds, minClickThrough: '2%' } }))).toBe(
      'canary.thresholds.minClickThrough',
    );
  });
});
