/**
 * Fuzz tests (fast-check) of the recipient-list file readers (readRecipientList,
 * loadRecipientList, readRecipientListHeader) and of ListRepository.importStream,
 * which takes uploads as they stream in. For any file, valid, truncated,
 * extended, bit-flipped, a valid header over a random body, or random bytes,
 * read at any chunk size or uploaded in chunks cut at random boundaries:
 *   - each returns or throws ListFormatError / ValidationError, and settles
 *     before a deadline (fast-check's `timeout` races every run);
 *   - each accepts exactly the files core's in-memory decoder accepts, and
 *     gives back the uins that were encoded;
 *   - a refused upload leaves no file behind.
 *
 * Runs per property: HERALD_FUZZ_RUNS (default below; each run writes files).
 * A failure prints the property's `seed` and `path`; replay exactly that case
 * by passing them to the failing assert: fc.assert(property, { seed: 1234, path: '5:2:0' }).
 * docs/fuzzing.md.
 */
import * as fc from 'fast-check';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  encodeListHeader,
  encodeRecipientList,
  ListFlags,
  RecipientListDecoder,
  UIN_BYTES,
} from '@herald/core/recipient-list';
import { ListFormatError, ValidationError } from '@herald/core';
import type { ListMeta } from '@herald/core/task';
import { makeTempDir, type TempDir } from '@herald/testing';
import { loadRecipientList, readRecipientList, readRecipientListHeader } from './list-reader';
import { ListRepository } from './list-repository';

const RUNS = Number(process.env.HERALD_FUZZ_RUNS) || 100;
/** Each run reads or writes a file of at most a few KB; a run still pending after this is a hang. */
const settings = { numRuns: RUNS, timeout: 5000 };

type Outcome = { ok: true; uins: number[] } | { ok: false; code: string };

/** Runs a reader; a ListFormatError or ValidationError becomes its code, anything else escapes and fails the property. */
async function outcome(read: () => Promise<ArrayLike<number>>): Promise<Outcome> {
  try {
    return { ok: true, uins: Array.from(await read()) };
  } catch (error) {
    if (error instanceof ListFormatError || error instanceof ValidationError) return { ok: false, code: error.code };
    throw error;
  }
}

/** What core's decoder says about the whole file in memory: the reference every reader must agree with. */
function reference(file: Uint8Array, uinLimit: number): Outcome {
  const decoder = new RecipientListDecoder(uinLimit);
  try {
    const uins = Array.from(decoder.push(file));
    decoder.end();
    return { ok: true, uins };
  } catch (error) {
    if (error instanceof ListFormatError) return { ok: false, code: error.code };
    throw error;
  }
}

const uinsArb = fc.array(fc.integer({ min: 0, max: 2 ** 32 - 1 }), { maxLength: 120 });
const flagsArb = fc.constantFrom(0, ListFlags.SORTED, ListFlags.UNIQUE, ListFlags.SORTED | ListFlags.UNIQUE);
const validArb = fc.tuple(uinsArb, flagsArb).map(([uins, flags]) => encodeRecipientList(uins, flags));
/** Sorted, distinct uins too, so the repository's sorted/unique detection sees both answers. */
const sortedArb = uinsArb.map((uins) => encodeRecipientList([...new Set(uins)].sort((a, b) => a - b)));

/** Files of every kind a reader or an upload can meet. */
const fileArb: fc.Arbitrary<Buffer> = fc.oneof(
  validArb,
  sortedArb,
  fc.tuple(validArb, fc.nat()).map(([file, at]) => file.subarray(0, at % file.length)),
  fc
    .tuple(validArb, fc.uint8Array({ minLength: 1, maxLength: 20 }))
    .map(([file, extra]) => Buffer.concat([file, extra])),
  fc.tuple(validArb, fc.nat(), fc.integer({ min: 0, max: 7 })).map(([file, at, bit]) => {
    const copy = Buffer.from(file);
    copy[at % copy.length]! ^= 1 << bit;
    return copy;
  }),
  fc
    .tuple(fc.uint8Array({ maxLength: 200 }), fc.integer({ min: -1, max: 1 }), fc.boolean(), flagsArb)
    .map(([body, delta, rightCrc, flags]) => {
      const count = Math.max(0, Math.floor(body.length / UIN_BYTES) + delta);
      return Buffer.concat([encodeListHeader({ flags, count, bodyCrc: rightCrc ? crc32(body) : 0xdeadbeef }), body]);
    }),
  fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)),
);
const uinLimitArb = fc.constantFrom(2 ** 32, 2 ** 31, 2 ** 16);
const chunkBytesArb = fc.oneof(fc.integer({ min: 1, max: 40 }), fc.constant(1 << 20));

/** Cuts bytes at the given points (modulo the length), each piece in its own buffer at an odd offset. */
function chunked(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const edges = [0, ...points, bytes.length];
  const out: Uint8Array[] = [];
  for (let i = 1; i < edges.length; i++) {
    const home = new Uint8Array(edges[i]! - edges[i - 1]! + 1);
    home.set(bytes.subarray(edges[i - 1], edges[i]), 1);
    out.push(home.subarray(1));
  }
  return out;
}

async function* asyncChunks(chunks: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const chunk of chunks) {
    await Promise.resolve();
    yield chunk;
  }
}

describe('recipient-list file readers, fuzzed', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('herald-list-read-fuzz-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  it('read, load and readHeader accept exactly what the decoder accepts, at any chunk size', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fileArb,
        uinLimitArb,
        chunkBytesArb,
        chunkBytesArb,
        async (file, uinLimit, readChunk, loadChunk) => {
          const path = join(dir.path, `l_${n++}.hrl`);
          await writeFile(path, file);
          const expected = reference(file, uinLimit);
          const streamed = await outcome(async () => {
            const uins: number[] = [];
            for await (const batch of readRecipientList(path, { uinLimit, chunkBytes: readChunk })) uins.push(...batch);
            return uins;
          });
          const loaded = await outcome(() => loadRecipientList(path, { uinLimit, chunkBytes: loadChunk }));
          const header = await outcome(async () => [(await readRecipientListHeader(path)).count]);
          expect(streamed.ok).toBe(expected.ok);
          expect(loaded.ok).toBe(expected.ok);
          if (expected.ok) {
            expect(streamed).toEqual(expected);
            expect(loaded).toEqual(expected);
            expect(header).toEqual({ ok: true, uins: [expected.uins.length] });
          }
        },
      ),
      settings,
    );
  });

  it('read and load report the same code for the same damaged file', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fileArb,
        uinLimitArb,
        chunkBytesArb,
        chunkBytesArb,
        async (file, uinLimit, readChunk, loadChunk) => {
          const path = join(dir.path, `c_${n++}.hrl`);
          await writeFile(path, file);
          const streamed = await outcome(async () => {
            for await (const batch of readRecipientList(path, { uinLimit, chunkBytes: readChunk })) void batch;
            return [];
          });
          const loaded = await outcome(async () => {
            await loadRecipientList(path, { uinLimit, chunkBytes: loadChunk });
            return [];
          });
          expect(streamed).toEqual(loaded);
        },
      ),
      settings,
    );
  });
});

describe('ListRepository.importStream, fuzzed', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('herald-list-import-fuzz-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  const cutsArb = fc.array(fc.nat(), { maxLength: 10 });

  it('stores exactly the uploads the decoder accepts, cut anywhere, and leaves nothing behind otherwise', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fileArb, uinLimitArb, cutsArb, fc.boolean(), async (file, uinLimit, cuts, nodeStream) => {
        const root = join(dir.path, `r_${n++}`);
        const lists = new ListRepository(root);
        const chunks = chunked(file, cuts);
        const source = nodeStream ? Readable.from(chunks) : asyncChunks(chunks);
        let meta: ListMeta | undefined;
        const imported = await outcome(async () => {
          meta = await lists.importStream(source, { accountId: 'acct', uinLimit, maxBytes: 1 << 20 });
          return [];
        });
        const expected = reference(file, uinLimit);
        if (!expected.ok || expected.uins.length === 0) {
          expect(imported.ok).toBe(false);
          if (expected.ok) expect(imported).toEqual({ ok: false, code: 'LIST_EMPTY' });
          expect(await readdir(root)).toEqual([]);
          return;
        }
        expect(imported.ok).toBe(true);
        const uins = expected.uins;
        const sorted = uins.every((u, i) => i === 0 || uins[i - 1]! <= u);
        // Uniqueness is only established for sorted uploads (order.ts): unsorted ones are "not known unique".
        const unique = sorted && new Set(uins).size === uins.length;
        expect(meta).toMatchObject({
          accountId: 'acct',
          count: uins.length,
          checksum: crc32(file.subarray(32)),
          sorted,
          unique,
          bytes: file.length,
        });
        expect(await readdir(root)).toEqual([`${meta!.id}.hrl`]);
        const stored = lists.pathOf(meta!.id);
        expect(Array.from(await loadRecipientList(stored, { uinLimit }))).toEqual(uins);
        expect((await readRecipientListHeader(stored)).flags).toBe(
          (sorted ? ListFlags.SORTED : 0) | (unique ? ListFlags.UNIQUE : 0),
        );
      }),
      settings,
    );
  });

  it('refuses an upload over maxBytes with ValidationError and leaves nothing behind', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(validArb, fc.nat(), cutsArb, async (file, under, cuts) => {
        const maxBytes = Math.max(1, file.length - 1 - (under % file.length));
        const root = join(dir.path, `m_${n++}`);
        const imported = await outcome(async () => {
          await new ListRepository(root).importStream(asyncChunks(chunked(file, cuts)), {
            accountId: 'acct',
            uinLimit: 2 ** 32,
            maxBytes,
          });
          return [];
        });
        expect(imported).toEqual({ ok: false, code: 'VALIDATION_FAILED' });
        expect(await readdir(root)).toEqual([]);
      }),
      settings,
    );
  });
});
