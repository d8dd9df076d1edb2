/**
 * Which positions of a batch went online: one bit per position of the
 * filtered list (bit i of byte i >> 3 is position `from + i`), set when the
 * recipient was pushed online and clear when it was queued offline. A
 * confirmed batch records exactly one bitset, so 10^8 positions cost 12.5 MB.
 */

/**
 * The bitset of `uins` (a sorted batch) whose members are in `online` (a
 * sorted subset of it, in order). It runs on the send path, once per batch:
 * a walk of the online ones, each found by a scan forward in the batch.
 */
export function onlineBitsOf(uins: Uint32Array, online: Uint32Array): Uint8Array {
  const count = uins.length;
  const bits = new Uint8Array((count + 7) >>> 3);
  let i = 0;
  for (let j = 0; j < online.length; j++) {
    const uin = online[j]!;
    while (i < count && uins[i] !== uin) i++;
    if (i === count) throw new RangeError('online is not an in-order subset of the batch');
    bits[i >>> 3]! |= 1 << (i & 7);
    i++;
  }
  return bits;
}

/** Whether bit `i` is set. */
export function bitAt(bits: Uint8Array, i: number): boolean {
  return ((bits[i >>> 3] ?? 0) & (1 << (i & 7))) !== 0;
}

/** How many of the first `count` bits are set. */
export function countBits(bits: Uint8Array, count: number): number {
  let n = 0;
  for (let i = 0; i < count; i++) if (bitAt(bits, i)) n++;
  return n;
}

/**
 * What a link removed, from what it was given and what it kept (both sorted;
 * `before` may repeat a uin, `after` keeps at most as many copies): the
 * multiset difference, sorted. For dedupe that is each repeat's extra copies.
 */
export function removedBetween(before: Uint32Array, after: Uint32Array): Uint32Array {
  const removed = new Uint32Array(before.length - after.length);
  let j = 0;
  let k = 0;
  for (let i = 0; i < before.length; i++) {
    if (j < after.length && before[i] === after[j]) j++;
    else removed[k++] = before[i]!;
  }
  if (j !== after.length || k !== removed.length) throw new RangeError('after is not a sorted sub-multiset of before');
  return removed;
}
