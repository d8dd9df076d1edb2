import { crc32 } from 'node:zlib';
import { ListFormatError } from '../errors';
import { RecipientListDecoder } from './decoder';
import { encodeRecipientList, RecipientListEncoder } from './encoder';
import { ListFlags } from './format';

/** Deterministic pseudo-random uins (xorshift32). */
function randomUins(n: number, seed: number): Uint32Array {
  const out = new Uint32Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x;
  }
  return out;
}

describe('RecipientListDecoder.pushInto', () => {
  it.each([1, 7, 33, 4096])('fills one array, chunk by chunk of %i bytes, with what push decodes', (size) => {
    const uins = randomUins(5000, size);
    const file = encodeRecipientList(uins, ListFlags.UNIQUE);
    const decoder = new RecipientListDecoder();
    const out = new Uint32Array(new SharedArrayBuffer(uins.length * 4));
    let filled = 0;
    for (let at = 0; at < file.length; at += size)
      filled += decoder.pushInto(file.subarray(at, at + size), out, filled);
    expect(filled).toBe(uins.length);
    expect(out).toEqual(new Uint32Array(uins));
    expect(decoder.end()).toMatchObject({ count: uins.length, bodyCrc: crc32(file.subarray(32)) });
  });

  it('refuses uins that do not fit the array with a RangeError, before writing any', () => {
    const file = encodeRecipientList(Uint32Array.of(1, 2, 3));
    const out = new Uint32Array(4).fill(9);
    expect(() => new RecipientListDecoder().pushInto(file, out, 2)).toThrow(RangeError);
    expect(out).toEqual(Uint32Array.of(9, 9, 9, 9));
  });

  it('answers a list longer than its header as LIST_TRAILING_BYTES, not as an overrun', () => {
    const file = Buffer.concat([encodeRecipientList(Uint32Array.of(1, 2)), Buffer.alloc(8)]);
    let error: unknown;
    try {
      new RecipientListDecoder().pushInto(file, new Uint32Array(2), 0);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ListFormatError);
    expect(error).toMatchObject({ code: 'LIST_TRAILING_BYTES' });
  });

  it('names the position of an out-of-range uin in the whole list', () => {
    const file = encodeRecipientList(Uint32Array.of(1, 2, 300, 4));
    const decoder = new RecipientListDecoder(256);
    const out = new Uint32Array(4);
    expect(decoder.pushInto(file.subarray(0, 48), out, 0)).toBe(2);
    expect(() => decoder.pushInto(file.subarray(48), out, 2)).toThrow(
      expect.objectContaining({ code: 'LIST_UIN_OUT_OF_RANGE', details: { uin: 300, position: 2, limit: 256 } }),
    );
  });
});

describe('RecipientListEncoder.bodyInto', () => {
  it('writes the bytes body gives into a reused, dirty buffer, and the same CRC', () => {
    const uins = randomUins(3000, 5);
    const fresh = new RecipientListEncoder();
    const reusing = new RecipientListEncoder();
    const scratch = Buffer.alloc(1000 * 8, 0xff);
    for (let at = 0; at < uins.length; at += 1000) {
      const batch = uins.subarray(at, at + 1000);
      expect(reusing.bodyInto(batch, scratch).equals(fresh.body(batch))).toBe(true);
    }
    expect(reusing.header(0).equals(fresh.header(0))).toBe(true);
    expect(reusing.encoded).toBe(3000);
  });

  it('refuses a buffer too small for the batch with a RangeError', () => {
    expect(() => new RecipientListEncoder().bodyInto(Uint32Array.of(1, 2), Buffer.alloc(15))).toThrow(RangeError);
  });
});
