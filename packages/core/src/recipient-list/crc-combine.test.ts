import { randomBytes } from 'node:crypto';
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
    const pieces = [randomBytes(3), randomBytes(1 << 20), randomBytes(0), randomBytes(4097), randomBytes(5 << 20)];
    let crc = 0;
    for (const piece of pieces) crc = crc32Combine(crc, crc32(piece), piece.length);
    expect(crc).toBe(crc32(Buffer.concat(pieces)));
  });
});
