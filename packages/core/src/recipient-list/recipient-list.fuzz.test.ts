/**
 * Fuzz tests (fast-check) of the recipient-list codec: RecipientListDecoder and
 * decodeListHeader take uploaded bytes, so whatever the bytes and however
 * they are chunked, decoding returns uins or throws ListFormatError, and
 * encode -> decode gives back the same uins and header.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below). A failure prints the
 * property's `seed` and `path`; replay exactly that case by passing them to
 * the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { crc32 } from 'node:zlib';
import { ListFormatError } from '../errors';
import { RecipientListDecoder } from './decoder';
import { encodeRecipientList } from './encoder';
import { decodeListHeader, encodeListHeader, LIST_HEADER_BYTES, ListFlags, UIN_BYTES, type ListHeader } from './format';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 300;
const settings = { numRuns: RUNS };

type Outcome = { ok: true; uins: number[]; header: ListHeader } | { ok: false; error: ListFormatError };

/** Decodes chunk by chunk; anything thrown but a ListFormatError escapes and fails the property. */
function decode(chunks: Uint8Array[], uinLimit?: number): Outcome {
  const decoder = new RecipientListDecoder(uinLimit);
  const uins: number[] = [];
  try {
    for (const chunk of chunks) for (const uin of decoder.push(chunk)) uins.push(uin);
    return { ok: true, uins, header: decoder.end() };
  } catch (error) {
    if (error instanceof ListFormatError) return { ok: false, error };
    throw error;
  }
}

/** Cuts bytes at the given points (taken modulo the length), each piece copied to an odd offset of its own buffer. */
function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % (bytes.length + 1))))].sort((a, b) => a - b);
  const edges = [0, ...points, bytes.length];
  const out: Uint8Array[] = [];
  for (let i = 1; i < edges.length; i++) {
    const part = bytes.subarray(edges[i - 1], edges[i]);
    const home = new Uint8Array(part.length + 1);
    home.set(part, 1);
    out.push(home.subarray(1));
  }
  return out;
}

const uinsArb = fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 200 });
const flagsArb = fc.constantFrom(0, ListFlags.SORTED, ListFlags.UNIQUE, ListFlags.SORTED | ListFlags.UNIQUE);
const cutsArb = fc.array(fc.nat(), { maxLength: 12 });
/** A valid file and the uins it holds. */
const fileArb = fc
  .record({ uins: uinsArb, flags: flagsArb })
  .map(({ uins, flags }) => ({ uins, flags, file: encodeRecipientList(uins, flags) }));

describe('recipient-list decoder, fuzzed', () => {
  it('round-trips any uins, flags and chunking', () => {
    fc.assert(
      fc.property(fileArb, cutsArb, ({ uins, flags, file }, cuts) => {
        const outcome = decode(chunked(file, cuts));
        expect(outcome).toEqual({
          ok: true,
          uins,
          header: { version: 1, flags, count: uins.length, bodyCrc: crc32(file.subarray(LIST_HEADER_BYTES)) },
        });
      }),
      settings,
    );
  });

  it('throws only ListFormatError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), cutsArb, (bytes, cuts) => {
        decode(chunked(bytes, cuts));
      }),
      settings,
    );
  });

  it('throws only ListFormatError on a valid header over an arbitrary body, and accepts it only when it is exactly right', () => {
    // Header fields are drawn near the body's real count and CRC, so the body checks are reached.
    const arb = fc.record({
      body: fc.uint8Array({ maxLength: 200 }),
      countDelta: fc.integer({ min: -2, max: 2 }),
      rightCrc: fc.boolean(),
      crc: fc.nat({ max: 2 ** 32 - 1 }),
      flags: flagsArb,
      uinLimit: fc.constantFrom(2 ** 32, 2 ** 20, 1),
      cuts: cutsArb,
    });
    fc.assert(
      fc.property(arb, ({ body, countDelta, rightCrc, crc, flags, uinLimit, cuts }) => {
        const count = Math.max(0, Math.floor(body.length / UIN_BYTES) + countDelta);
        const bodyCrc = rightCrc ? crc32(body) : crc;
        const file = Buffer.concat([encodeListHeader({ flags, count, bodyCrc }), body]);
        const outcome = decode(chunked(file, cuts), uinLimit);
        if (outcome.ok) {
          expect(body.length).toBe(count * UIN_BYTES);
          expect(bodyCrc).toBe(crc32(body));
          expect(outcome.uins.every((uin) => uin < uinLimit)).toBe(true);
        }
      }),
      settings,
    );
  });

  it('reports every truncation of a valid file as LIST_TRUNCATED', () => {
    fc.assert(
      fc.property(fileArb, fc.nat(), cutsArb, ({ file }, at, cuts) => {
        const cut = file.subarray(0, at % file.length);
        const outcome = decode(chunked(cut, cuts));
        expect(outcome.ok ? 'decoded' : outcome.error.code).toBe('LIST_TRUNCATED');
      }),
      settings,
    );
  });

  it('reports any bytes after a valid file as LIST_TRAILING_BYTES', () => {
    fc.assert(
      fc.property(fileArb, fc.uint8Array({ minLength: 1, maxLength: 40 }), cutsArb, ({ file }, extra, cuts) => {
        const outcome = decode(chunked(Buffer.concat([file, extra]), cuts));
        expect(outcome.ok ? 'decoded' : outcome.error.code).toBe('LIST_TRAILING_BYTES');
      }),
      settings,
    );
  });

  it('detects every single-bit flip of a valid file', () => {
    fc.assert(
      fc.property(fileArb, fc.nat(), fc.integer({ min: 0, max: 7 }), cutsArb, ({ file }, at, bit, cuts) => {
        const corrupt = Buffer.from(file);
        corrupt[at % corrupt.length]! ^= 1 << bit;
        expect(decode(chunked(corrupt, cuts)).ok).toBe(false);
      }),
      settings,
    );
  });

  it('accepts uins below uinLimit and reports the first one at or above it with its position', () => {
    fc.assert(
      fc.property(uinsArb, fc.integer({ min: 1, max: 2 ** 32 }), cutsArb, (uins, uinLimit, cuts) => {
        const outcome = decode(chunked(encodeRecipientList(uins), cuts), uinLimit);
        const position = uins.findIndex((uin) => uin >= uinLimit);
        if (position < 0) {
          expect(outcome.ok && outcome.uins).toEqual(uins);
        } else {
          expect(outcome.ok ? 'decoded' : outcome.error.code).toBe('LIST_UIN_OUT_OF_RANGE');
          expect(!outcome.ok && outcome.error.details).toEqual({ uin: uins[position], position, limit: uinLimit });
        }
      }),
      settings,
    );
  });
});

describe('recipient-list header, fuzzed', () => {
  it('decodeListHeader throws only ListFormatError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), (bytes) => {
        try {
          decodeListHeader(bytes);
        } catch (error) {
          if (!(error instanceof ListFormatError)) throw error;
        }
      }),
      settings,
    );
  });

  it('round-trips any flags, count and body CRC', () => {
    const arb = fc.record({
      flags: flagsArb,
      count: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      bodyCrc: fc.nat({ max: 2 ** 32 - 1 }),
    });
    fc.assert(
      fc.property(arb, (header) => {
        expect(decodeListHeader(encodeListHeader(header))).toEqual({ version: 1, ...header });
      }),
      settings,
    );
  });
});
