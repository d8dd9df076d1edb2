import { endianness } from 'node:os';
import { HeraldError, ErrorCodes } from '@herald/core';

/**
 * Sorted-uin runs as LevelDB values: u32 little-endian, back to back. On a
 * little-endian host (every platform Node ships for today) encoding and
 * decoding are one memory copy; the DataView path covers the rest.
 */
const LITTLE_ENDIAN_HOST = endianness() === 'LE';

export function encodeUins(uins: Uint32Array): Buffer {
  if (LITTLE_ENDIAN_HOST) return Buffer.from(new Uint8Array(uins.buffer, uins.byteOffset, uins.byteLength));
  const buf = Buffer.allocUnsafe(uins.length * 4);
  for (let i = 0; i < uins.length; i++) buf.writeUInt32LE(uins[i]!, i * 4);
  return buf;
}

/** A fresh (owned, aligned) Uint32Array of the record's uins. */
export function decodeUins(buf: Uint8Array): Uint32Array {
  if (buf.byteLength % 4 !== 0) {
    throw new HeraldError(
      ErrorCodes.INTERNAL,
      `corrupt offline record: ${buf.byteLength} bytes is not a multiple of 4`,
    );
  }
  const out = new Uint32Array(buf.byteLength / 4);
  if (LITTLE_ENDIAN_HOST) {
    new Uint8Array(out.buffer).set(buf);
  } else {
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    for (let i = 0; i < out.length; i++) out[i] = view.getUint32(i * 4, true);
  }
  return out;
}

/** Union of two sorted, duplicate-free arrays: sorted and duplicate-free. */
export function unionSorted(a: Uint32Array, b: Uint32Array): Uint32Array {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let w = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    if (x < y) {
      out[w++] = x;
      i++;
    } else if (y < x) {
      out[w++] = y;
      j++;
    } else {
      out[w++] = x;
      i++;
      j++;
    }
  }
  while (i < a.length) out[w++] = a[i++]!;
  while (j < b.length) out[w++] = b[j++]!;
  return out.subarray(0, w);
}

export interface RangeSlice {
  range: number;
  uins: Uint32Array;
}

/** Splits a sorted array into consecutive slices (views, no copy) that share a range. */
export function splitByRange(sorted: Uint32Array, rangeOf: (uin: number) => number): RangeSlice[] {
  const slices: RangeSlice[] = [];
  let start = 0;
  while (start < sorted.length) {
    const range = rangeOf(sorted[start]!);
    let end = start + 1;
    while (end < sorted.length && rangeOf(sorted[end]!) === range) end++;
    slices.push({ range, uins: sorted.subarray(start, end) });
    start = end;
  }
  return slices;
}
