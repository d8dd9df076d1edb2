import { ErrorCodes, HeraldError } from '../errors';
import { radixSortUint32, uniqueSorted } from '../uins/sorted-set';
import { withinBudget } from './filter';
import { compileFrequencyPolicy } from './policy';
import { budget } from './release';

const H = 3_600_000;
const MIDNIGHT = Date.UTC(2024, 2, 10);
const policy = compileFrequencyPolicy();

function sortedUins(n: number, seed: number): Uint32Array {
  const out = new Uint32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1_664_525) + 1_013_904_223) >>> 0;
    out[i] = x;
  }
  return uniqueSorted(radixSortUint32(out));
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return error instanceof HeraldError ? error.code : 'not a HeraldError';
  }
  return undefined;
}

describe('withinBudget', () => {
  it('keeps exactly the users whose budget is above 0, in order, at many times of the day', () => {
    const uins = sortedUins(3000, 7);
    const used = Uint32Array.from(uins, (uin) => uin % 5); // 0..4 used today
    for (const hour of [0, 0.5, 3, 5.99, 6, 9, 12, 13.5, 16, 20, 23.99]) {
      const now = MIDNIGHT + hour * H;
      const expected = [...uins].filter((uin, i) => budget(policy, uin, used[i]!, now) > 0);
      const { kept, overFrequency } = withinBudget(policy, uins, used, now);
      expect(kept).toBeInstanceOf(Uint32Array);
      expect([...kept]).toEqual(expected);
      expect(overFrequency).toBe(uins.length - expected.length);
    }
  });

  it('keeps everybody unused at the end of the day, nobody who used all 6', () => {
    const uins = sortedUins(500, 3);
    const end = MIDNIGHT + 24 * H - 1;
    expect(withinBudget(policy, uins, new Uint32Array(uins.length), end).kept).toEqual(uins);
    expect(withinBudget(policy, uins, new Uint32Array(uins.length).fill(6), end)).toEqual({
      kept: new Uint32Array(0),
      overFrequency: 500,
    });
  });

  it('judges duplicates alike and accepts plain arrays of counts', () => {
    const { kept } = withinBudget(policy, Uint32Array.of(5, 5, 9), [0, 0, 6], MIDNIGHT + 24 * H - 1);
    expect([...kept]).toEqual([5, 5]);
  });

  it('handles an empty batch', () => {
    expect(withinBudget(policy, new Uint32Array(0), [], MIDNIGHT)).toEqual({
      kept: new Uint32Array(0),
      overFrequency: 0,
    });
  });

  it('rejects unsorted uins, misaligned or bad counts, and a non-Uint32Array, with VALIDATION_FAILED', () => {
    expect(codeOf(() => withinBudget(policy, Uint32Array.of(2, 1), [0, 0], MIDNIGHT))).toBe(
      ErrorCodes.VALIDATION_FAILED,
    );
    expect(codeOf(() => withinBudget(policy, Uint32Array.of(1, 2), [0], MIDNIGHT))).toBe(ErrorCodes.VALIDATION_FAILED);
    expect(codeOf(() => withinBudget(policy, Uint32Array.of(1), [-1], MIDNIGHT))).toBe(ErrorCodes.VALIDATION_FAILED);
    expect(codeOf(() => withinBudget(policy, Uint32Array.of(1), [Number.NaN], MIDNIGHT))).toBe(
      ErrorCodes.VALIDATION_FAILED,
    );
    expect(codeOf(() => withinBudget(policy, [1] as unknown as Uint32Array, [0], MIDNIGHT))).toBe(
      ErrorCodes.VALIDATION_FAILED,
    );
    expect(codeOf(() => withinBudget(policy, Uint32Array.of(1), [0], Number.NaN))).toBe(ErrorCodes.VALIDATION_FAILED);
  });
});
