import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import { crc32Combine } from './crc-combine';

describe('crc32Combine', () => {
  it('is the CRC of the two byte strings joined, at any split and length', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.uint8Array({ maxLength: 300 }), (a, b) => {
        const joined = crc32(Buffer.concat([a, b]));
        expect(crc32Combine(crc32(Buffer.from(a)), crc32(Buffer.from(b)), b.length)).toBe(joined);
      }),
      { numRuns: 300 },
    );
  });

  it('joins a long second string (megabytes: many squarings) and many pieces in order', () => {
    // Bytes of a multiplicative hash: arbitrary, and the same every run.
    const bytes = (length: number, seed: number) =>
      Buffer.from(Uint8Array.from({ length }, (_, i) => Math.imul(i + seed, 2654435761) >>> 24));
    const pieces = [bytes(3, 1), bytes(1 << 20, 2), bytes(0, 3), bytes(4097, 4), bytes(5 << 20, 5)];
    let crc = 0;
    for (const piece of pieces) crc = crc32Combine(crc, crc32(piece), piece.length);
    expect(crc).toBe(crc32(Buffer.concat(pieces)));
  });
});
