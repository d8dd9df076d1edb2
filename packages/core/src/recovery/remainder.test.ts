import { ErrorCodes } from '../errors';
import { seededRandom } from '../random';
import {
  complementRanges,
  computeRemainder,
  mergeRanges,
  parseBatchReport,
  ReportsMismatchError,
  selectByRanges,
  type ListRange,
} from './remainder';

/** The reference: a boolean per position, set by every range. */
function coveredPositions(n: number, ranges: readonly ListRange[]): boolean[] {
  const covered = new Array<boolean>(n).fill(false);
  for (const { from, to } of ranges) for (let i = from; i < to; i++) covered[i] = true;
  return covered;
}

const list = (n: number) => Uint32Array.from({ length: n }, (_, i) => 10 + 3 * i);

describe('mergeRanges', () => {
  it('merges overlapping, repeated, adjacent and out-of-order ranges, and drops empty ones', () => {
    expect(
      mergeRanges([
        { from: 20, to: 30 },
        { from: 0, to: 10 },
        { from: 0, to: 10 },
        { from: 5, to: 12 },
        { from: 12, to: 15 },
        { from: 40, to: 40 },
        { from: 25, to: 28 },
      ]),
    ).toEqual([
      { from: 0, to: 15 },
      { from: 20, to: 30 },
    ]);
  });

  it('does not change its input', () => {
    const input = [
      { from: 5, to: 9 },
      { from: 0, to: 6 },
    ];
    mergeRanges(input);
    expect(input).toEqual([
      { from: 5, to: 9 },
      { from: 0, to: 6 },
    ]);
  });
});

describe('complementRanges', () => {
  it('is [0, n) when nothing was reported, and empty when everything was', () => {
    expect(complementRanges([], 7)).toEqual([{ from: 0, to: 7 }]);
    expect(complementRanges([{ from: 0, to: 7 }], 7)).toEqual([]);
    expect(complementRanges([], 0)).toEqual([]);
  });

  it('gives the gaps before, between and after the ranges', () => {
    expect(
      complementRanges(
        [
          { from: 2, to: 4 },
          { from: 6, to: 8 },
        ],
        10,
      ),
    ).toEqual([
      { from: 0, to: 2 },
      { from: 4, to: 6 },
      { from: 8, to: 10 },
    ]);
  });

  it('refuses a range past the end of the list with a typed error', () => {
    let caught: unknown;
    try {
      complementRanges(
        [
          { from: 0, to: 4 },
          { from: 8, to: 11 },
        ],
        10,
      );
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ReportsMismatchError);
    expect((caught as ReportsMismatchError).code).toBe(ErrorCodes.VALIDATION_FAILED);
    expect((caught as ReportsMismatchError).details).toEqual({
      reason: 'past_list_end',
      from: 8,
      to: 11,
      listLength: 10,
    });
  });

  it('refuses a range before the start', () => {
    expect(() => complementRanges([{ from: -1, to: 3 }], 10)).toThrow(ReportsMismatchError);
  });
});

describe('selectByRanges', () => {
  it('picks the uins at the positions, in order', () => {
    expect(
      Array.from(
        selectByRanges(list(10), [
          { from: 1, to: 3 },
          { from: 8, to: 10 },
        ]),
      ),
    ).toEqual([13, 16, 34, 37]);
  });

  it('refuses a range outside the list', () => {
    expect(() => selectByRanges(list(3), [{ from: 2, to: 4 }])).toThrow(ReportsMismatchError);
  });
});

describe('computeRemainder', () => {
  it('matches a per-position reference for random, overlapping, repeated, shuffled reports', () => {
    const random = seededRandom(3);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(random() * 300);
      const filtered = list(n);
      const reports: ListRange[] = [];
      const count = Math.floor(random() * 20);
      for (let i = 0; i < count && n > 0; i++) {
        const from = Math.floor(random() * n);
        const to = Math.min(n, from + 1 + Math.floor(random() * 40));
        reports.push({ from, to });
        if (random() < 0.3) reports.push({ from, to }); // at least once: the same batch again
      }
      const covered = coveredPositions(n, reports);
      const remainder = computeRemainder(filtered, reports);
      expect(Array.from(remainder.uins)).toEqual(Array.from(filtered).filter((_, i) => !covered[i]));
      expect(remainder.reached).toBe(covered.filter(Boolean).length);
      expect(remainder.reached + remainder.uins.length).toBe(n);
    }
  });

  it('is the whole list when nothing was reported', () => {
    const remainder = computeRemainder(list(5), []);
    expect(Array.from(remainder.uins)).toEqual(Array.from(list(5)));
    expect(remainder.reached).toBe(0);
    expect(remainder.reported).toEqual([]);
  });

  it('refuses reports past the end of the list', () => {
    expect(() => computeRemainder(list(5), [{ from: 0, to: 6 }])).toThrow(ReportsMismatchError);
  });
});

describe('parseBatchReport', () => {
  const good = { taskId: 7, unitNo: 0, from: 0, to: 1000, delivered: 300, offline: 700, executor: 'executor-1' };

  it('reads a report of the task', () => {
    expect(parseBatchReport(good, 7)).toEqual(good);
  });

  it('skips a report of another task', () => {
    expect(parseBatchReport({ ...good, taskId: 8 }, 7)).toBeUndefined();
  });

  it.each([
    ['not an object', 'x'],
    ['null', null],
    ['an empty range', { ...good, to: 0 }],
    ['a negative start', { ...good, from: -1 }],
    ['a fractional end', { ...good, to: 1.5 }],
    ['no executor', { ...good, executor: undefined }],
    ['a missing count', { ...good, delivered: undefined }],
  ])('refuses %s with a typed error', (_name, value) => {
    expect(() => parseBatchReport(value, 7)).toThrow(ReportsMismatchError);
  });
});
