import { mulberry32 } from '@herald/core';
import { partitionBelow, pivotsOf, sortInPlace, sortListInPlace, splitAtPivots } from './value-ranges';

/** n uins from a seeded generator, each `lo + next() % span`. */
function randomList(n: number, lo: number, span: number, seed: number): Uint32Array {
  const next = mulberry32(seed);
  return Uint32Array.from({ length: n }, () => lo + (next() % span));
}

const ascending = (values: Uint32Array) => Uint32Array.from(values).sort();

/** The uins of `values` outside [lo, hi): none when every one is in (one expect for many uins). */
const outside = (values: Uint32Array, lo: number, hi: number) => values.filter((u) => u < lo || u >= hi);

describe('partitionBelow', () => {
  it('moves the uins below the pivot first, loses nothing, and leaves the rest of the list alone', () => {
    const list = Uint32Array.from([7, 7, ...randomList(10_000, 0, 1000, 1), 7]);
    const before = ascending(list.subarray(2, list.length - 1));
    const at = partitionBelow(list, 2, list.length - 1, 400);
    expect(outside(list.subarray(2, at), 0, 400)).toEqual(new Uint32Array(0));
    expect(outside(list.subarray(at, list.length - 1), 400, 2 ** 32)).toEqual(new Uint32Array(0));
    expect(ascending(list.subarray(2, list.length - 1))).toEqual(before);
    expect([list[0], list[1], list[list.length - 1]]).toEqual([7, 7, 7]);
  });

  it('answers the start when nothing is below, and the end when everything is', () => {
    expect(partitionBelow(Uint32Array.of(5, 6, 5), 0, 3, 5)).toBe(0);
    expect(partitionBelow(Uint32Array.of(5, 6, 5), 0, 3, 2 ** 32 - 1)).toBe(3);
  });
});

describe('pivotsOf and splitAtPivots', () => {
  it('cut a list into ranges of about equal uins, in value order, however it is spread', () => {
    for (const list of [
      randomList(60_000, 0, 2 ** 32 - 1, 2),
      randomList(60_000, 2 ** 31, 300, 3),
      Uint32Array.from(randomList(60_000, 0, 2 ** 20, 4), (u) => u * u),
    ]) {
      const before = ascending(list);
      const pivots = pivotsOf(list, 3);
      const bounds = splitAtPivots(list, pivots);
      expect([bounds[0], bounds[3]]).toEqual([0, list.length]);
      for (let p = 0; p < 3; p++) {
        const range = list.subarray(bounds[p], bounds[p + 1]);
        expect(outside(range, pivots[p - 1] ?? 0, pivots[p] ?? 2 ** 32)).toEqual(new Uint32Array(0));
        expect(range.length).toBeGreaterThan(list.length / 4);
      }
      expect(ascending(list)).toEqual(before);
    }
  });

  it('give every uin of a list of one value to one range, and cut an empty list into empty ranges', () => {
    const same = new Uint32Array(1000).fill(42);
    expect(splitAtPivots(same, pivotsOf(same, 4))).toEqual([0, 0, 0, 0, 1000]);
    expect(splitAtPivots(new Uint32Array(0), pivotsOf(new Uint32Array(0), 2))).toEqual([0, 0, 0]);
  });
});

describe('sortInPlace', () => {
  it('sorts by splitting a piece over the scratch, down to runs of one uin', () => {
    // A scratch of 64 forces many splits; repeated uins at both ends of the value space.
    const list = Uint32Array.from([
      ...randomList(30_000, 0, 2 ** 32 - 1, 5),
      ...new Uint32Array(700).fill(0),
      ...new Uint32Array(700).fill(77),
      ...new Uint32Array(700).fill(2 ** 32 - 1),
    ]);
    const expected = ascending(list);
    sortInPlace(list, 0, list.length, new Uint32Array(64));
    expect(list).toEqual(expected);
  });

  it('sorts a whole list where it lies', () => {
    const list = randomList(5000, 0, 2 ** 32 - 1, 6);
    const expected = ascending(list);
    expect(sortListInPlace(list)).toBe(list);
    expect(list).toEqual(expected);
    expect(sortListInPlace(new Uint32Array(0))).toEqual(new Uint32Array(0));
  });

  it('sorts only its range, and a list of one repeated uin', () => {
    const list = Uint32Array.of(9, 3, 1, 2, 0);
    sortInPlace(list, 1, 4, new Uint32Array(64));
    expect([...list]).toEqual([9, 1, 2, 3, 0]);
    const max = new Uint32Array(500).fill(2 ** 32 - 1);
    sortInPlace(max, 0, max.length, new Uint32Array(8));
    expect(max.every((u) => u === 2 ** 32 - 1)).toBe(true);
  });
});
