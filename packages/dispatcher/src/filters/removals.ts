/**
 * The in-memory links' set operations, compacting in place as
 * `uniqueSorted` and `subtractSorted` do, that also hand back what they
 * removed: the record of a link (docs/recipient-truth.md) without a copy of
 * its input. A copy of a 10^8 list is 400 MB; what a link removes is
 * usually a few percent of it. Each counts first and then compacts, so the
 * removed uins go into an array of exactly their size, on a buffer of their
 * own that a worker thread can transfer to the main thread.
 */

export interface Removal {
  /** The kept prefix of the input, in place. */
  kept: Uint32Array;
  /** What was removed, ascending. */
  removed: Uint32Array;
}

/** `uniqueSorted`, and each repeat's extra copies (a uin given 3 times is removed twice). */
export function dedupeRecording(sorted: Uint32Array): Removal {
  let repeats = 0;
  for (let r = 1; r < sorted.length; r++) if (sorted[r] === sorted[r - 1]) repeats++;
  const removed = new Uint32Array(repeats);
  if (repeats === 0) return { kept: sorted, removed };
  let w = 1;
  let k = 0;
  for (let r = 1; r < sorted.length; r++) {
    const v = sorted[r]!;
    if (v !== sorted[w - 1]) sorted[w++] = v;
    else removed[k++] = v;
  }
  return { kept: sorted.subarray(0, w), removed };
}

/** `subtractSorted`: sorted `a` (in place) minus sorted, distinct `b`, and the uins of `a` that were in `b`. */
export function subtractRecording(a: Uint32Array, b: Uint32Array): Removal {
  const removed = new Uint32Array(countCommon(a, b));
  if (removed.length === 0) return { kept: a, removed };
  let w = 0;
  let j = 0;
  let k = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    while (j < b.length && b[j]! < v) j++;
    if (j < b.length && b[j] === v) removed[k++] = v;
    else a[w++] = v;
  }
  return { kept: a.subarray(0, w), removed };
}

/** How many uins of sorted `a` are in sorted, distinct `b`. */
function countCommon(a: Uint32Array, b: Uint32Array): number {
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const v = a[i]!;
    while (j < b.length && b[j]! < v) j++;
    if (j < b.length && b[j] === v) n++;
  }
  return n;
}
