/**
 * Set algebra on uins held as Uint32Arrays. Lists are sorted once (radix sort,
 * linear time) and every later stage works on sorted runs: dedupe is a scan,
 * blacklist and no-resend are merges, bitmap lookups walk memory in order.
 * A V8 Set tops out at 2^24 entries; these work on 10^8 and more.
 */

/** Sorts in place, ascending, in two 16-bit LSD passes. Returns the same array. */
export function radixSortUint32(values: Uint32Array, scratch?: Uint32Array): Uint32Array {
  const n = values.length;
  if (n < 2) return values;
  if (n < 256) return values.sort();
  const tmp = scratch && scratch.length >= n ? scratch.subarray(0, n) : new Uint32Array(n);
  const counts = new Uint32Array(65536);
  // Pass 1: low 16 bits, values -> tmp.
  for (let i = 0; i < n; i++) counts[values[i]! & 0xffff]!++;
  let sum = 0;
  for (let b = 0; b < 65536; b++) {
    const c = counts[b]!;
    counts[b] = sum;
    sum += c;
  }
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    tmp[counts[v & 0xffff]!++] = v;
  }
  // Pass 2: high 16 bits, tmp -> values.
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[tmp[i]! >>> 16]!++;
  sum = 0;
  for (let b = 0; b < 65536; b++) {
    const c = counts[b]!;
    counts[b] = sum;
    sum += c;
  }
  for (let i = 0; i < n; i++) {
    const v = tmp[i]!;
    values[counts[v >>> 16]!++] = v;
  }
  return values;
}

export function isSortedUint32(values: Uint32Array): boolean {
  for (let i = 1; i < values.length; i++) if (values[i - 1]! > values[i]!) return false;
  return true;
}

/** Compacts a sorted array to its distinct values, in place. Returns the distinct prefix. */
export function uniqueSorted(sorted: Uint32Array): Uint32Array {
  if (sorted.length < 2) return sorted;
  let w = 1;
  for (let r = 1; r < sorted.length; r++) {
    const v = sorted[r]!;
    if (v !== sorted[w - 1]) sorted[w++] = v;
  }
  return sorted.subarray(0, w);
}

/** Removes from sorted `a` (in place) every value in sorted `b`. Returns the kept prefix of `a`. */
export function subtractSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (b.length === 0 || a.length === 0) return a;
  let w = 0;
  let j = 0;
  for (let i = 0; i < a.length; i++) {
    const v = a[i]!;
    while (j < b.length && b[j]! < v) j++;
    if (j < b.length && b[j] === v) continue;
    a[w++] = v;
  }
  return a.subarray(0, w);
}

/** Index of `value` in sorted `values`, or -1. */
export function indexOfSorted(values: Uint32Array, value: number): number {
  let lo = 0;
  let hi = values.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = values[mid]!;
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
