/*
 * CRC-32 (zlib's, the list body's checksum) of two byte strings joined,
 * from each one's CRC and the second's length, without their bytes: a list
 * written run by run at scattered offsets (audience's writeListInRuns) keeps
 * one running CRC per run and joins them in file order. zlib's
 * crc32_combine: appending `length` zero bytes to a CRC is a linear map over
 * GF(2), applied by squaring the one-zero-bit operator.
 */

/** The reflected CRC-32 polynomial. */
const POLYNOMIAL = 0xedb88320;

/** The CRC of `a` followed by `b`, given crc(a), crc(b) and b's length in bytes. */
export function crc32Combine(crcA: number, crcB: number, lengthB: number): number {
  if (lengthB <= 0) return crcA >>> 0;
  // odd: the operator for one zero bit; even: for two. Squared in turn, they shift by 4, 8, 16 ... zero bits.
  let odd: Uint32Array = new Uint32Array(32);
  let even: Uint32Array;
  odd[0] = POLYNOMIAL;
  for (let n = 1, row = 1; n < 32; n++, row <<= 1) odd[n] = row >>> 0;
  even = square(odd);
  odd = square(even);
  let crc = crcA >>> 0;
  let length = lengthB;
  for (;;) {
    even = square(odd);
    if (length % 2 === 1) crc = times(even, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
    odd = square(even);
    if (length % 2 === 1) crc = times(odd, crc);
    length = Math.floor(length / 2);
    if (length === 0) break;
  }
  return (crc ^ crcB) >>> 0;
}

function times(matrix: Uint32Array, vector: number): number {
  let sum = 0;
  for (let i = 0, v = vector >>> 0; v !== 0; i++, v >>>= 1) if ((v & 1) !== 0) sum ^= matrix[i]!;
  return sum >>> 0;
}

function square(matrix: Uint32Array): Uint32Array {
  const out = new Uint32Array(32);
  for (let n = 0; n < 32; n++) out[n] = times(matrix, matrix[n]!);
  return out;
}
