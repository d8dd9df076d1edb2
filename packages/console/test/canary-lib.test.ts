import type { CanaryReport, Task } from '../src/api/types';
import { emptyForm, formFieldOf, toCreateBody, validateBroadcast } from '../src/lib/broadcast-form';
import { canaryBreachOf, canaryText, clickThroughText, engagementRows } from '../src/lib/canary-words';
import { emptyRollout, rolloutBody, rolloutFormOf, validateRollout, type RolloutForm } from '../src/lib/rollout-form';
import { canaryWords, templateRolloutWords } from '../src/lib/rollout-words';

/**
 * A canary's minimum click-through in the console without a browser
 * (docs/rollouts.md, "Click-through"): the form's field, checked as the
 * server checks thresholds.minClickThrough, the request field it becomes and
 * back, where a refusal naming it lands, and the task page's words for the
 * engagement reported and for a canary that paused itself on too few clicks.
 */
const canaryForm = (over: Partial<RolloutForm> = {}): RolloutForm => ({
  ...emptyRollout(),
  canaryOn: true,
  ...over,
});

const NOW = Date.UTC(2026, 10, 27, 16, 40);
const thresholds = { rejectedRatio: 0.05, failedRatio: 0.05, minClickThrough: 0.02 };

/** A canary task as the API answers it: 300 recipients, a sample of 150 delivered online. */
function canaryTask(canary: CanaryReport, over: Partial<Task> = {}, report: Partial<Task['report']> = {}): Task {
  return {
    id: 7,
    accountId: 'acme',
    listId: 'l_1',
    state: 'SENDING',
    content: { body: 'Checkout is live' },
    priority: 'normal',
    sendAt: NOW - 600_000,
    expiresAt: NOW + 86_400_000,
    rollout: { seed: 1, canary: { sample: '50%', holdSeconds: 300, thresholds } },
    listCount: 300,
    owner: 'scheduler-1',
    filteredListId: 'f_7',
    report: {
      total: 300,
      kept: 300,
      removed: {},
      delivered: 150,
      offline: 0,
      units: 2,
      unitsDone: 1,
      canary,
      ...report,
    },
    error: null,
    createdAt: NOW - 600_000,
    updatedAt: NOW,
    ...over,
  };
}

describe('the minimum click-through field', () => {
  it('is not set by default and then adds nothing to the request', () => {
    const form = canaryForm();
    expect(form.canaryMinClickThrough).toBe('');
    expect(validateRollout(form, false)).toEqual({});
    expect(rolloutBody(form, false).canary?.thresholds).toEqual({ rejectedRatio: 0.05, failedRatio: 0.05 });
  });

  it('sends a percent as the ratio the API takes, decimals included', () => {
    expect(rolloutBody(canaryForm({ canaryMinClickThrough: '2' }), false).canary?.thresholds).toEqual({
      rejectedRatio: 0.05,
      failedRatio: 0.05,
      minClickThrough: 0.02,
    });
    expect(rolloutBody(canaryForm({ canaryMinClickThrough: '0.35' }), false).canary?.thresholds.minClickThrough).toBe(
      0.0035,
    );
    // Surrounding spaces are the field's, not the number's: the same as the other thresholds.
    expect(rolloutBody(canaryForm({ canaryMinClickThrough: ' 7 ' }), false).canary?.thresholds.minClickThrough).toBe(
      0.07,
    );
  });

  it('refuses what the server refuses, naming the field', () => {
    for (const typed of ['150', '-1', 'two', '2%', '1e-2'])
      expect(validateRollout(canaryForm({ canaryMinClickThrough: typed }), false)).toEqual({
        canaryMinClickThrough: 'Minimum click-through: a percent from 0 to 100.',
      });
    expect(validateRollout(canaryForm({ canaryMinClickThrough: '0' }), false)).toEqual({});
    expect(validateRollout(canaryForm({ canaryMinClickThrough: '100' }), false)).toEqual({});
    // Checked only with the canary on: a leftover value of a canary turned off is not sent, so not judged.
    expect(validateRollout({ ...emptyRollout(), canaryMinClickThrough: 'two' }, false)).toEqual({});
  });

  it("keeps the new-broadcast form from sending a bad minimum, and puts the server's refusal on the field", () => {
    const form = {
      ...emptyForm('acme'),
      listId: 'l_1',
      body: 'Hello',
      rollout: canaryForm({ canaryMinClickThrough: '101' }),
    };
    expect(validateBroadcast(form, 0)).toEqual({
      canaryMinClickThrough: 'Minimum click-through: a percent from 0 to 100.',
    });
    form.rollout.canaryMinClickThrough = '1.5';
    expect(toCreateBody(form).canary?.thresholds.minClickThrough).toBe(0.015);
    expect(formFieldOf('canary.thresholds.minClickThrough')).toBe('canaryMinClickThrough');
    expect(formFieldOf('canary.thresholds.rejectedRatio')).toBe('canaryRejectedPercent');
  });

  it('comes back from a stored canary as typed, and stays empty when the canary has none', () => {
    const stored = (minClickThrough?: number) => ({
      rollout: {
        canary: {
          sample: '1%',
          holdSeconds: 600,
          thresholds: {
            rejectedRatio: 0.05,
            failedRatio: 0.05,
            ...(minClickThrough === undefined ? {} : { minClickThrough }),
          },
        },
      },
    });
    expect(rolloutFormOf(stored(0.0035)).canaryMinClickThrough).toBe('0.35');
    expect(rolloutFormOf(stored()).canaryMinClickThrough).toBe('');
    const again = rolloutBody(rolloutFormOf(stored(0.0035)), false);
    expect(again.canary?.thresholds).toEqual({ rejectedRatio: 0.05, failedRatio: 0.05, minClickThrough: 0.0035 });
  });

  it('is said with the canary on the task and on the campaign template', () => {
    const canary = { sample: '1%', holdSeconds: 600, thresholds };
    expect(canaryWords(canary)).toBe(
      '1% of the recipients first, hold 10 min; stop above 5% rejected or 5% failed, or below 2% click-through',
    );
    expect(canaryWords({ ...canary, thresholds: { rejectedRatio: 0.05, failedRatio: 0.05 } })).not.toMatch(/click/);
    expect(templateRolloutWords({ canary })).toMatch(/or below 2% click-through\.$/);
  });
});

describe("the canary panel's engagement", () => {
  const holding: CanaryReport = { sample: 150, state: 'sampling', holdUntil: NOW + 120_000 };

  it('says nothing of click-through for a canary without a minimum and without clicks', () => {
    const task = canaryTask(holding, {
      rollout: {
        seed: 1,
        canary: { sample: '50%', holdSeconds: 300, thresholds: { rejectedRatio: 0.05, failedRatio: 0.05 } },
      },
    });
    expect(engagementRows(task, holding, NOW)).toBeUndefined();
  });

  it('says before any report that click-through is not judged without one', () => {
    expect(engagementRows(canaryTask(holding), holding, NOW)).toEqual({
      clicks: 'None reported yet.',
      clickThrough: 'Not known yet: if no clicks are reported by the end of the hold, click-through is not judged.',
      minimum: '2%: below it when the hold ends, the broadcast pauses itself.',
    });
  });

  it('shows the clicks reported and the click-through of the sample so far against the minimum', () => {
    const engagement = { clicks: 1, opens: 12, reportedAt: NOW - 60_000 };
    const rows = engagementRows(canaryTask(holding, {}, { engagement }), holding, NOW)!;
    expect(rows.clicks).toMatch(/^1 click, 12 opens; last raised .* \(1 min 00 s ago\)$/);
    expect(rows.clickThrough).toBe('0.67% of the sample so far (1 of 150 delivered online)');
    const many = engagementRows(canaryTask(holding, {}, { engagement: { clicks: 9, reportedAt: NOW } }), holding, NOW)!;
    expect(many.clicks).toMatch(/^9 clicks; last raised/);
    expect(many.clickThrough).toBe('6% of the sample so far (9 of 150 delivered online)');
  });

  it('shows the rate the canary was judged by once judged', () => {
    const passed: CanaryReport = { ...holding, state: 'passed', rejectedRatio: 0, failedRatio: 0, clickThrough: 0.06 };
    const task = canaryTask(passed, {}, { delivered: 300, engagement: { clicks: 9, reportedAt: NOW } });
    expect(engagementRows(task, passed, NOW)!.clickThrough).toBe(
      "6% of the sample's recipients delivered online, judged when the hold ended",
    );
    // Passed without a report: the rest went on the other thresholds alone.
    const unjudged: CanaryReport = { ...passed, clickThrough: undefined };
    expect(engagementRows(canaryTask(unjudged), unjudged, NOW)!.clickThrough).toBe(
      'Not judged: no clicks were reported by the end of the hold.',
    );
  });

  it('says a canary paused for too few clicks in words, with the rate and the minimum', () => {
    const failed: CanaryReport = {
      ...holding,
      state: 'failed',
      rejectedRatio: 0,
      failedRatio: 0,
      clickThrough: 1 / 150,
    };
    const task = canaryTask(failed, {
      state: 'PAUSED',
      error: {
        code: 'CANARY_FAILED',
        message: "the canary's recipients clicked through at 0.67% of those delivered, of 150 (minimum 2.00%)",
      },
    });
    expect(canaryBreachOf(failed, thresholds)).toBe('clickThrough');
    expect(canaryText(task, failed, NOW)).toBe(
      "Failed: too few clicks. 0.67% of the sample's recipients delivered online clicked, under the minimum of 2%. The broadcast paused itself; nobody beyond the sample was sent anything.",
    );
  });

  it("names the channel's breach first, as the server judges, and keeps its reason", () => {
    const failed: CanaryReport = { ...holding, state: 'failed', rejectedRatio: 0.3, failedRatio: 0, clickThrough: 0 };
    expect(canaryBreachOf(failed, thresholds)).toBe('rejected');
    expect(canaryBreachOf({ ...failed, rejectedRatio: 0, failedRatio: 0.5 }, thresholds)).toBe('failed');
    expect(canaryBreachOf({ ...failed, rejectedRatio: 0, clickThrough: 0.02 }, thresholds)).toBeUndefined();
    expect(canaryBreachOf(holding, thresholds)).toBeUndefined();
    const task = canaryTask(failed, {
      state: 'PAUSED',
      error: {
        code: 'CANARY_FAILED',
        message: "the channel rejected 30.00% of the canary's 150 recipients (threshold 5.00%)",
      },
    });
    expect(canaryText(task, failed, NOW)).toMatch(
      /^Failed: the channel rejected 30\.00% of the canary's 150 recipients/,
    );
  });

  it('words a rate just under the minimum so that it reads under it', () => {
    expect(clickThroughText(0.0196)).toBe('1.96%');
    expect(clickThroughText(0.02)).toBe('2%');
    expect(clickThroughText(1 / 3)).toBe('33.33%');
  });
});
