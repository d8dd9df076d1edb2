import { indexOfSorted, isSortedUint32, radixSortUint32, subtractSorted, uniqueSorted } from './sorted-set';
import { seededRandom } from '../random';

/** Random uins mixing the full range, a small range (many duplicates) and values near 2^32 - 1. */
function randomUins(n: number, seed: number): Uint32Array {
  const random = seededRandom(seed);
  const out = new Uint32Array(n);
  for (let i = 0; i < n; i++) {
    const pick = random();
    if (pick < 0.4) out[i] = Math.floor(random() * 2 ** 32);
    else if (pick < 0.7) out[i] = Math.floor(random() * 50);
    else if (pick < 0.9) out[i] = 0xffffffff - Math.floor(random() * 70_000);
    else out[i] = 0x10000 * Math.floor(random() * 3) + Math.floor(random() * 3); // across the 16-bit digit boundary
  }
  return out;
}

const numeric = (a: number, b: number) => a - b;

/** The reference: plain Array sort of the numbers. */
function arraySorted(values: Uint32Array): number[] {
  return Array.from(values).sort(numeric);
}

function sortedUnique(values: Uint32Array): Uint32Array {
  return Uint32Array.from(new Set(arraySorted(values)));
}

describe('radixSortUint32', () => {
  it.each([0, 1, 2, 255, 256, 257, 1000, 100_000])('matches Array sort on %i random values, in place', (n) => {
    const values = randomUins(n, n + 17);
    const expected = arraySorted(values);
    const result = radixSortUint32(values);
    expect(result).toBe(values);
    expect(Array.from(values)).toEqual(expected);
    expect(isSortedUint32(values)).toBe(true);
  });

  it('sorts the extremes 0 and 2^32 - 1 and already sorted or reversed input', () => {
    const ascending = Uint32Array.from({ length: 1000 }, (_, i) => 0xffffffff - 999 + i);
    const reversed = ascending.slice().reverse();
    expect(Array.from(radixSortUint32(reversed))).toEqual(Array.from(ascending));
    expect(Array.from(radixSortUint32(ascending.slice()))).toEqual(Array.from(ascending));
    const extremes = new Uint32Array(300);
    for (let i = 0; i < 300; i++) extremes[i] = i % 2 === 0 ? 0xffffffff : 0;
    expect(Array.from(radixSortUint32(extremes))).toEqual([...Array(150).fill(0), ...Array(150).fill(0xffffffff)]);
  });

  it('uses a large enough scratch array and ignores one that is too small', () => {
    const values = randomUins(5000, 3);
    const expected = arraySorted(values);
    expect(Array.from(radixSortUint32(values.slice(), new Uint32Array(10_000)))).toEqual(expected);
    expect(Array.from(radixSortUint32(values.slice(), new Uint32Array(10)))).toEqual(expected);
  });
});

describe('isSortedUint32', () => {
  it('tells sorted from unsorted', () => {
    expect(isSortedUint32(new Uint32Array(0))).toBe(true);
    expect(isSortedUint32(Uint32Array.of(1, 1, 2, 0xffffffff))).toBe(true);
    expect(isSortedUint32(Uint32Array.of(1, 0))).toBe(false);
    expect(isSortedUint32(Uint32Array.of(0, 0xffffffff, 5))).toBe(false);
  });
});

describe('uniqueSorted', () => {
  it.each([0, 1, 2, 255, 256, 100_000])('compacts %i sorted random values to their distinct values', (n) => {
    const values = radixSortUint32(randomUins(n, n + 5));
    const expected = sortedUnique(values);
    const result = uniqueSorted(values);
    expect(Array.from(result)).toEqual(Array.from(expected));
    if (n > 1) expect(result.buffer).toBe(values.buffer); // in place
  });

  it('handles all-equal and all-distinct arrays', () => {
    expect(Array.from(uniqueSorted(new Uint32Array(10).fill(0xffffffff)))).toEqual([0xffffffff]);
    expect(Array.from(uniqueSorted(Uint32Array.of(1, 2, 3)))).toEqual([1, 2, 3]);
    expect(Array.from(uniqueSorted(Uint32Array.of(0, 0, 1, 1, 1, 2)))).toEqual([0, 1, 2]);
  });
});

describe('subtractSorted', () => {
  /** The reference: a filter against a Set. */
  function naive(a: Uint32Array, b: Uint32Array): number[] {
    const drop = new Set(b);
    return Array.from(a).filter((v) => !drop.has(v));
  }

  it.each([
    [0, 0],
    [0, 10],
    [10, 0],
    [1, 1],
    [255, 256],
    [10_000, 3000],
    [3000, 10_000],
    [100_000, 100_000],
  ])('matches a naive Set filter for |a| = %i, |b| = %i', (na, nb) => {
    const a = radixSortUint32(randomUins(na, na * 31 + nb));
    const b = uniqueSorted(radixSortUint32(randomUins(nb, nb * 7 + 1)));
    const expected = naive(a, b);
    expect(Array.from(subtractSorted(a, b))).toEqual(expected);
  });

  it('keeps duplicates in a that are not in b, and drops every copy of those that are', () => {
    const a = Uint32Array.of(1, 1, 2, 2, 3, 5, 5, 0xffffffff);
    const b = Uint32Array.of(2, 4, 5, 0xffffffff);
    expect(Array.from(subtractSorted(a, b))).toEqual([1, 1, 3]);
  });

  it('accepts b with duplicates', () => {
    expect(Array.from(subtractSorted(Uint32Array.of(1, 2, 3, 4), Uint32Array.of(2, 2, 3, 3)))).toEqual([1, 4]);
  });

  it('removes everything when b holds every value of a', () => {
    expect(subtractSorted(Uint32Array.of(1, 2, 3), Uint32Array.of(0, 1, 2, 3, 4)).length).toBe(0);
  });
});

describe('indexOfSorted', () => {
  it('finds every present value and returns -1 for absent ones', () => {
    const values = uniqueSorted(radixSortUint32(randomUins(10_000, 99)));
    const present = new Set(values);
    for (let i = 0; i < values.length; i++) expect(indexOfSorted(values, values[i]!)).toBe(i);
    const random = seededRandom(5);
    let absent = 0;
    for (let i = 0; i < 2000; i++) {
      const probe = Math.floor(random() * 2 ** 32);
      if (present.has(probe)) continue;
      absent++;
      expect(indexOfSorted(values, probe)).toBe(-1);
    }
    expect(absent).toBeGreaterThan(1000);
  });

  it('handles the ends and empty arrays', () => {
    const values = Uint32Array.of(0, 5, 0xffffffff);
    expect(indexOfSorted(values, 0)).toBe(0);
    expect(indexOfSorted(values, 5)).toBe(1);
    expect(indexOfSorted(values, 0xffffffff)).toBe(2);
    expect(indexOfSorted(values, 4)).toBe(-1);
    expect(indexOfSorted(values, 0xfffffffe)).toBe(-1);
    expect(indexOfSorted(new Uint32Array(0), 0)).toBe(-1);
    expect(indexOfSorted(Uint32Array.of(7), 7)).toBe(0);
  });

  it('returns the index of one of the copies of a duplicated value', () => {
    const values = Uint32Array.of(1, 3, 3, 3, 9);
    expect(values[indexOfSorted(values, 3)]).toBe(3);
  });
});
