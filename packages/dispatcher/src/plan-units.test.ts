import type { PlannedUnit } from '@herald/transport';
import { planUnits } from './plan-units';

/** Checks that the units tile [0, count) in order, without gaps or overlaps, each at most unitSize. */
function expectTiling(units: PlannedUnit[], count: number, unitSize: number): void {
  let next = 0;
  for (const unit of units) {
    expect(unit.start).toBe(next);
    expect(unit.end).toBeGreaterThan(unit.start);
    expect(unit.end - unit.start).toBeLessThanOrEqual(unitSize);
    next = unit.end;
  }
  expect(next).toBe(count);
}

const one = [{ id: 'e1', pending: 0 }];

describe('planUnits', () => {
  it.each([
    [10, 5],
    [11, 5],
    [4, 5],
    [5, 5],
    [1, 1],
    [7, 1],
    [1_000_003, 65_536],
  ])('covers [0, %i) exactly with units of at most %i', (count, unitSize) => {
    const units = planUnits(count, unitSize, one);
    expect(units).toHaveLength(Math.ceil(count / unitSize));
    expectTiling(units, count, unitSize);
  });

  it('cuts exact boundaries', () => {
    expect(planUnits(11, 5, one)).toEqual([
      { start: 0, end: 5, executorId: 'e1' },
      { start: 5, end: 10, executorId: 'e1' },
      { start: 10, end: 11, executorId: 'e1' },
    ]);
  });

  it('plans no unit for no recipients', () => {
    expect(planUnits(0, 5, one)).toEqual([]);
  });

  it('places each unit on the least-loaded executor, counting the units already placed', () => {
    const units = planUnits(40, 10, [
      { id: 'a', pending: 25 },
      { id: 'b', pending: 0 },
      { id: 'c', pending: 12 },
    ]);
    // b 0 -> 10 -> 20; then c (12) < b (20) -> c 22; then b (20) < c (22) < a (25).
    expect(units.map((u) => u.executorId)).toEqual(['b', 'b', 'c', 'b']);
    expectTiling(units, 40, 10);
  });

  it('spreads evenly over idle executors, the first listed winning a tie', () => {
    const units = planUnits(60, 10, [
      { id: 'a', pending: 0 },
      { id: 'b', pending: 0 },
      { id: 'c', pending: 0 },
    ]);
    expect(units.map((u) => u.executorId)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('weighs pending loads against the units it places, and leaves the input untouched', () => {
    const executors = [
      { id: 'a', pending: 0 },
      { id: 'b', pending: 5 },
    ];
    // a 0 -> 10; then b (5) < a (10) -> b 15; then a (10) < b (15).
    expect(planUnits(23, 10, executors).map((u) => [u.executorId, u.end - u.start])).toEqual([
      ['a', 10],
      ['b', 10],
      ['a', 3],
    ]);
    expect(executors).toEqual([
      { id: 'a', pending: 0 },
      { id: 'b', pending: 5 },
    ]);
  });

  it('throws a RangeError when there is no executor', () => {
    expect(() => planUnits(10, 5, [])).toThrow(RangeError);
    expect(() => planUnits(0, 5, [])).toThrow(RangeError);
  });
});
