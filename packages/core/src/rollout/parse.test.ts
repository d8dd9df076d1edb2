import { ValidationError } from '../errors';
import { checkTaskRollout, parseCanary, parseVariants } from './parse';

function fieldOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return (error as ValidationError).details.field;
  }
  throw new Error('expected a refusal');
}

const canary = { sample: '1%', holdSeconds: 600, thresholds: { rejectedRatio: 0.05, failedRatio: 0.05 } };
const content = { body: 'hi' };

describe('rollout parsers', () => {
  it('takes a canary by percent or by count', () => {
    expect(parseCanary(canary)).toEqual(canary);
    expect(parseCanary({ ...canary, sample: 10_000 }).sample).toBe(10_000);
    expect(parseCanary({ ...canary, sample: '0.25%' }).sample).toBe('0.25%');
  });

  it('names the field of a bad canary', () => {
    expect(fieldOf(() => parseCanary('1%'))).toBe('canary');
    expect(fieldOf(() => parseCanary({ ...canary, sample: '0%' }))).toBe('canary.sample');
    expect(fieldOf(() => parseCanary({ ...canary, sample: '51%' }))).toBe('canary.sample');
    expect(fieldOf(() => parseCanary({ ...canary, sample: 1.5 }))).toBe('canary.sample');
    expect(fieldOf(() => parseCanary({ ...canary, holdSeconds: -1 }))).toBe('canary.holdSeconds');
    expect(fieldOf(() => parseCanary({ ...canary, thresholds: { rejectedRatio: 2, failedRatio: 0 } }))).toBe(
      'canary.thresholds.rejectedRatio',
    );
    expect(fieldOf(() => parseCanary({ ...canary, thresholds: { rejectedRatio: 0, failedRatio: 0, ctr: 1 } }))).toBe(
      'canary.thresholds.ctr',
    );
    expect(fieldOf(() => parseCanary({ ...canary, hold: '10m' }))).toBe('canary.hold');
  });

  it('takes variants whose shares add up to 1 - holdout', () => {
    const parsed = parseVariants(
      [
        { name: 'a', share: 0.45, content },
        { name: 'b', share: 0.45, content: { body: 'ho', title: 't' } },
      ],
      0.1,
    );
    expect(parsed.holdout).toBe(0.1);
    expect(parsed.variants.map((v) => v.name)).toEqual(['a', 'b']);
  });

  it('names the field of bad variants', () => {
    const a = { name: 'a', share: 0.5, content };
    const b = { name: 'b', share: 0.5, content };
    expect(fieldOf(() => parseVariants([a], undefined))).toBe('variants');
    expect(fieldOf(() => parseVariants([a, { ...b, share: 0.4 }], undefined))).toBe('variants');
    expect(fieldOf(() => parseVariants([a, b], 0.1))).toBe('variants');
    expect(fieldOf(() => parseVariants([a, b], 1))).toBe('holdout');
    expect(fieldOf(() => parseVariants([a, { ...b, name: 'a' }], undefined))).toBe('variants[1].name');
    expect(fieldOf(() => parseVariants([a, { ...b, share: 1 }], undefined))).toBe('variants[1].share');
    expect(fieldOf(() => parseVariants([a, { ...b, content: { body: '' } }], undefined))).toBe(
      'variants[1].content.body',
    );
    expect(fieldOf(() => parseVariants([a, { ...b, extra: 1 }], undefined))).toBe('variants[1].extra');
    expect(fieldOf(() => parseVariants(Array(9).fill(a), undefined))).toBe('variants');
  });

  it('re-checks a stored rollout', () => {
    expect(checkTaskRollout({ seed: 5, canary })).toEqual({ seed: 5, canary });
    expect(fieldOf(() => checkTaskRollout({ seed: -1, canary }))).toBe('rollout.seed');
    expect(fieldOf(() => checkTaskRollout({ seed: 1 }))).toBe('rollout');
    expect(fieldOf(() => checkTaskRollout({ seed: 1, canary, holdout: 0.1 }))).toBe('holdout');
  });
});
