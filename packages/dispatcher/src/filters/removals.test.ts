import { mulberry32 } from '@herald/core';
import { removedBetween } from '@herald/core/fate';
import { radixSortUint32, subtractSorted, uniqueSorted } from '@herald/core/uins';
import { dedupeRecording, subtractRecording } from './removals';

/** n sorted uins over [0, range), repeats included. */
function sortedList(n: number, range: number, seed: number): Uint32Array {
  const next = mulberry32(seed);
  return radixSortUint32(Uint32Array.from({ length: n }, () => next() % range));
}

describe('dedupeRecording', () => {
  it('keeps what uniqueSorted keeps and removes each repeat extra copies, as a copy compared would say', () => {
    for (const [n, range, seed] of [
      [0, 1, 1],
      [1, 1, 2],
      [5000, 1000, 3],
      [5000, 1_000_000, 4],
      // Over 2^16 repeats: the removed uins fill more than one block.
      [200_000, 1000, 5],
    ] as const) {
      const list = sortedList(n, range, seed);
      const { kept, removed } = dedupeRecording(list.slice());
      expect([...kept]).toEqual([...uniqueSorted(list.slice())]);
      expect([...removed]).toEqual([...removedBetween(list, kept)]);
    }
    const { kept, removed } = dedupeRecording(Uint32Array.of(1, 1, 1, 4, 6, 6, 2 ** 32 - 1, 2 ** 32 - 1));
    expect([...kept]).toEqual([1, 4, 6, 2 ** 32 - 1]);
    expect([...removed]).toEqual([1, 1, 6, 2 ** 32 - 1]);
  });
});

describe('subtractRecording', () => {
  it('keeps what subtractSorted keeps and removes the uins found in the set', () => {
    const list = uniqueSorted(sortedList(150_000, 1_000_000, 5));
    for (const set of [
      new Uint32Array(0),
      uniqueSorted(sortedList(3000, 200_000, 6)),
      list.filter((_, i) => i % 3 === 0),
      Uint32Array.of(0, 2 ** 32 - 1),
      list,
    ]) {
      const { kept, removed } = subtractRecording(list.slice(), set);
      expect([...kept]).toEqual([...subtractSorted(list.slice(), set)]);
      expect([...removed]).toEqual([...removedBetween(list, kept)]);
      expect(removed.length + kept.length).toBe(list.length);
    }
  });

  it('hands back its removals on a buffer of their own, exactly their size', () => {
    const { removed } = subtractRecording(Uint32Array.of(1, 2, 3, 4), Uint32Array.of(2, 4, 9));
    expect([...removed]).toEqual([2, 4]);
    expect(removed.buffer.byteLength).toBe(8);
    const repeats = dedupeRecording(Uint32Array.of(3, 3, 3, 7)).removed;
    expect(repeats.buffer.byteLength).toBe(8);
  });
});
