import * as fc from 'fast-check';
import { HeraldError } from '../errors';
import {
  CHUNK_UINS,
  chunkCardinality,
  chunkHas,
  chunkMembers,
  chunkOf,
  decodeChunk,
  DENSE_CHUNK_BYTES,
  emptyChunk,
  encodeChunk,
  forEachStoredMember,
  setChunkBit,
  storedMembersInto,
} from './bitset-chunk';

function chunkWith(chunk: number, lows: number[]): Uint32Array {
  const words = emptyChunk();
  for (const low of lows) setChunkBit(words, chunk * CHUNK_UINS + low, true);
  return words;
}

function members(words: Uint32Array, chunk: number): number[] {
  const out = new Uint32Array(CHUNK_UINS);
  return [...out.subarray(0, chunkMembers(words, chunk, out, 0))];
}

describe('bitset chunks', () => {
  it('places a uin in its chunk by its top bits, up to the last uin of a 2^32 space', () => {
    expect(chunkOf(0)).toBe(0);
    expect(chunkOf(65_535)).toBe(0);
    expect(chunkOf(65_536)).toBe(1);
    expect(chunkOf(2 ** 32 - 1)).toBe(65_535);
    const words = chunkWith(65_535, [65_535]);
    expect(chunkHas(words, 2 ** 32 - 1)).toBe(true);
    expect(members(words, 65_535)).toEqual([2 ** 32 - 1]);
  });

  it('stores a small chunk sparse (2 bytes a member, ascending) and a full one dense (8 KiB)', () => {
    const sparse = encodeChunk(chunkWith(3, [9, 1, 65_535]))!;
    expect([...sparse]).toEqual([1, 0, 9, 0, 0xff, 0xff]);
    const dense = encodeChunk(
      chunkWith(
        0,
        Array.from({ length: 4096 }, (_, i) => i * 16),
      ),
    )!;
    expect(dense.byteLength).toBe(DENSE_CHUNK_BYTES);
    expect(
      encodeChunk(
        chunkWith(
          0,
          Array.from({ length: 4095 }, (_, i) => i),
        ),
      )!.byteLength,
    ).toBe(8190);
  });

  it('answers undefined for an empty chunk: it is deleted, never stored', () => {
    expect(encodeChunk(emptyChunk())).toBeUndefined();
    const words = chunkWith(0, [5]);
    setChunkBit(words, 5, false);
    expect(encodeChunk(words)).toBeUndefined();
  });

  it('round-trips any set of members through either form', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: CHUNK_UINS - 1 }), { maxLength: 6000 }),
        fc.integer({ min: 0, max: 65_535 }),
        (lows, chunk) => {
          const words = chunkWith(chunk, lows);
          expect(chunkCardinality(words)).toBe(lows.length);
          const bytes = encodeChunk(words);
          const back = bytes === undefined ? emptyChunk() : decodeChunk(bytes);
          expect(members(back, chunk)).toEqual([...lows].sort((a, b) => a - b).map((low) => chunk * CHUNK_UINS + low));
        },
      ),
      { numRuns: 100 },
    );
  });

  it('refuses a damaged stored chunk with a typed error', () => {
    for (const bytes of [
      new Uint8Array(0),
      new Uint8Array(3),
      new Uint8Array(8192 + 2),
      Uint8Array.of(2, 0, 1, 0),
      Uint8Array.of(1, 0, 1, 0),
    ]) {
      expect(() => decodeChunk(bytes)).toThrow(HeraldError);
    }
  });

  it("visits a stored chunk's members in order, sparse or dense, as its decoded words hold them", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: CHUNK_UINS - 1 }), { maxLength: 6000 }), (lows) => {
        const bytes = encodeChunk(chunkWith(3, lows));
        if (bytes === undefined) return lows.length === 0;
        const visited: number[] = [];
        forEachStoredMember(bytes, (low) => visited.push(low));
        expect(visited).toEqual([...lows].sort((a, b) => a - b));
        return true;
      }),
      { numRuns: 50 },
    );
    expect(() => forEachStoredMember(new Uint8Array(3), () => undefined)).toThrow(HeraldError);
  });

  it("writes a stored chunk's members in order after what `out` already holds, sparse or dense", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: CHUNK_UINS - 1 }), { minLength: 1, maxLength: 6000 }),
        fc.integer({ min: 0, max: 100 }),
        (lows, at) => {
          // At an odd offset in a larger buffer, as a store's row may hand it over.
          const encoded = encodeChunk(chunkWith(5, lows))!;
          const bytes = new Uint8Array(encoded.byteLength + 2).fill(0xff).subarray(1, encoded.byteLength + 1);
          bytes.set(encoded);
          const out = new Uint32Array(at + CHUNK_UINS).fill(7);
          const end = storedMembersInto(bytes, out, at);
          expect(end).toBe(at + lows.length);
          expect([...out.subarray(0, at)].every((v) => v === 7)).toBe(true);
          expect([...out.subarray(at, end)]).toEqual([...lows].sort((a, b) => a - b));
        },
      ),
      { numRuns: 50 },
    );
    expect(() => storedMembersInto(new Uint8Array(3), new Uint32Array(4), 0)).toThrow(HeraldError);
  });
});
