import { murmur3 } from './murmur3';

describe('murmur3 (x86, 32-bit)', () => {
  it.each([
    ['', 0],
    ['hello', 613153351],
    ['abc', 3017643002],
  ])('murmur3(%j) === %d', (text, hash) => {
    expect(murmur3(text)).toBe(hash);
  });

  it('matches the reference vectors for every tail length and a seed', () => {
    // Reference values from the canonical C implementation (MurmurHash3_x86_32).
    expect(murmur3('', 1)).toBe(0x514e28b7);
    expect(murmur3('', 0xffffffff)).toBe(0x81f16f39);
    expect(murmur3('a')).toBe(0x3c2569b2);
    expect(murmur3('ab')).toBe(0x9bbfd75f);
    expect(murmur3('abcd')).toBe(0x43ed676a);
    expect(murmur3('Hello, world!', 1234)).toBe(0xfaf6cdb3);
    expect(murmur3('The quick brown fox jumps over the lazy dog')).toBe(0x2e4ff723);
  });

  it('returns an unsigned 32-bit integer', () => {
    for (let i = 0; i < 1000; i++) {
      const h = murmur3(`key-${i}`);
      expect(Number.isInteger(h)).toBe(true);
      expect(h).toBeGreaterThanOrEqual(0);
      expect(h).toBeLessThan(2 ** 32);
    }
  });
});
