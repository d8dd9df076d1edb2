import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeListHeader, encodeRecipientList, ListFlags } from '@herald/core/recipient-list';
import { ValidationError, ErrorCodes, HeraldError } from '@herald/core';
import { loadRecipientList, readRecipientList, readRecipientListHeader } from './list-reader';
import { RecipientListWriter, writeRecipientListFile } from './list-writer';

const U32 = 2 ** 32;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-audience-writer-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Deterministic pseudo-random uins (xorshift32). */
function randomUins(n: number, seed = 0x9e3779b9): Uint32Array {
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

/** Byte comparison: jest's toEqual walks a 10^6-element typed array far too slowly. */
function expectSameUins(actual: Uint32Array, expected: Uint32Array): void {
  expect(actual.length).toBe(expected.length);
  const bytes = (u: Uint32Array) => Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  expect(bytes(actual).equals(bytes(expected))).toBe(true);
}

async function collect(path: string, chunkBytes?: number, uinLimit = U32): Promise<Uint32Array> {
  const parts: Uint32Array[] = [];
  for await (const batch of readRecipientList(path, chunkBytes === undefined ? { uinLimit } : { uinLimit, chunkBytes }))
    parts.push(batch);
  const out = new Uint32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Writes `uins` through a RecipientListWriter in batches of the given sizes (cycled). */
async function writeInBatches(path: string, uins: Uint32Array, sizes: number[], flags = 0) {
  const writer = await RecipientListWriter.create(path);
  let at = 0;
  for (let k = 0; at < uins.length; k++) {
    const size = sizes[k % sizes.length]!;
    await writer.write(uins.subarray(at, at + size));
    at += size;
  }
  return writer.close(flags);
}

describe('RecipientListWriter -> readRecipientList roundtrip', () => {
  const cases: Array<[string, number, number[]]> = [
    ['0 uins', 0, [1]],
    ['1 uin', 1, [1]],
    ['1000 uins, batches of 1', 1000, [1]],
    ['10^6 uins, mixed batches', 1_000_000, [1, 999, 65_536, 300_000]],
  ];
  it.each(cases)('%s', async (_name, n, sizes) => {
    const uins = randomUins(n);
    const path = join(dir, 'list.hrl');
    const written = await writeInBatches(path, uins, sizes);
    expect(written.count).toBe(n);
    expect(written.bytes).toBe(32 + 8 * n);
    const file = await readFile(path);
    expect(file.length).toBe(written.bytes);
    expect(file.equals(encodeRecipientList(uins))).toBe(true);
    expect(decodeListHeader(file)).toEqual({ version: 1, flags: 0, count: n, bodyCrc: written.checksum });

    const chunkSizes = n <= 1000 ? [1, 7, 8, 33, 4096, undefined] : [4093, 65_536, undefined];
    for (const chunkBytes of chunkSizes) expectSameUins(await collect(path, chunkBytes), uins);
    expect(await readdir(dir)).toEqual(['list.hrl']);
  });

  it('loadRecipientList returns exactly what streaming yields, for any read chunk size', async () => {
    const uins = randomUins(1_000_000, 7);
    const path = join(dir, 'big.hrl');
    await writeRecipientListFile(path, uins);
    const streamed = await collect(path);
    for (const chunkBytes of [4093, 1 << 16, undefined]) {
      const loaded = await loadRecipientList(
        path,
        chunkBytes === undefined ? { uinLimit: U32 } : { uinLimit: U32, chunkBytes },
      );
      expect(loaded.buffer.byteLength).toBe(uins.length * 4); // one array of exactly count uins
      expectSameUins(loaded, streamed);
    }
    expectSameUins(streamed, uins);
  });

  it('reads small lists with tiny read chunks through the loader too', async () => {
    const path = join(dir, 'small.hrl');
    const uins = randomUins(100, 3);
    await writeRecipientListFile(path, uins);
    for (const chunkBytes of [1, 3, 8, 9])
      expect(await loadRecipientList(path, { uinLimit: U32, chunkBytes })).toEqual(uins);
    expect(await loadRecipientList(join(dir, 'small.hrl'), { uinLimit: U32 })).toEqual(uins);
  });

  it('loads a list of 0 and of 1 uin', async () => {
    await writeRecipientListFile(join(dir, 'zero.hrl'), new Uint32Array(0));
    await writeRecipientListFile(join(dir, 'one.hrl'), Uint32Array.of(4_294_967_295));
    expect(await loadRecipientList(join(dir, 'zero.hrl'), { uinLimit: U32 })).toEqual(new Uint32Array(0));
    expect(await loadRecipientList(join(dir, 'one.hrl'), { uinLimit: U32 })).toEqual(Uint32Array.of(4_294_967_295));
  });
});

describe('writeRecipientListFile', () => {
  it('writes the same bytes as the core encoder and as the streaming writer', async () => {
    const uins = randomUins(50_000, 11);
    const a = await writeRecipientListFile(join(dir, 'a.hrl'), uins);
    const b = await writeInBatches(join(dir, 'b.hrl'), uins, [4096]);
    expect(a).toEqual(b);
    const bytes = await readFile(join(dir, 'a.hrl'));
    expect(bytes.equals(encodeRecipientList(uins))).toBe(true);
    expect(bytes.equals(await readFile(join(dir, 'b.hrl')))).toBe(true);
  });

  it('writes a list of several slices (one reused buffer) byte for byte as the core encoder', async () => {
    const uins = randomUins(2.5 * (1 << 20), 12);
    const path = join(dir, 'slices.hrl');
    await writeRecipientListFile(path, uins);
    expect((await readFile(path)).equals(encodeRecipientList(uins))).toBe(true);
  });

  it('records true flags in the header', async () => {
    const path = join(dir, 'sorted.hrl');
    await writeRecipientListFile(path, Uint32Array.of(1, 5, 9), ListFlags.SORTED | ListFlags.UNIQUE);
    expect((await readRecipientListHeader(path)).flags).toBe(ListFlags.SORTED | ListFlags.UNIQUE);
  });

  it('refuses flags the uins contradict, and unknown flag bits, writing nothing', async () => {
    const path = join(dir, 'bad.hrl');
    await expect(writeRecipientListFile(path, Uint32Array.of(3, 1), ListFlags.SORTED)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(writeRecipientListFile(path, Uint32Array.of(1, 1), ListFlags.UNIQUE)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(writeRecipientListFile(path, Uint32Array.of(1, 2), 4)).rejects.toBeInstanceOf(ValidationError);
    expect(await readdir(dir)).toEqual([]);
  });

  it('replaces an existing list atomically', async () => {
    const path = join(dir, 'l.hrl');
    await writeRecipientListFile(path, Uint32Array.of(1, 2, 3));
    await writeRecipientListFile(path, Uint32Array.of(4));
    expect(await loadRecipientList(path, { uinLimit: U32 })).toEqual(Uint32Array.of(4));
    expect(await readdir(dir)).toEqual(['l.hrl']);
  });

  it('fails cleanly when the directory does not exist', async () => {
    await expect(writeRecipientListFile(join(dir, 'missing', 'l.hrl'), Uint32Array.of(1))).rejects.toMatchObject({
      code: 'ENOENT',
    });
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('RecipientListWriter lifecycle', () => {
  it('never shows a half-written list under the final name; abort removes the temp file', async () => {
    const path = join(dir, 'l.hrl');
    const writer = await RecipientListWriter.create(path);
    await writer.write(randomUins(10_000));
    // A crash here leaves only the temp file: the final name does not exist.
    expect(await readdir(dir)).toEqual(['l.hrl.tmp']);
    expect(writer.tempPath).toBe(`${path}.tmp`);
    expect(writer.count).toBe(10_000);
    await writer.abort();
    expect(await readdir(dir)).toEqual([]);
    await writer.abort(); // idempotent
  });

  it('abort keeps an earlier list under the same name intact', async () => {
    const path = join(dir, 'l.hrl');
    await writeRecipientListFile(path, Uint32Array.of(7, 8, 9));
    const writer = await RecipientListWriter.create(path);
    await writer.write(Uint32Array.of(1, 2));
    await writer.abort();
    expect(await readdir(dir)).toEqual(['l.hrl']);
    expect(await loadRecipientList(path, { uinLimit: U32 })).toEqual(Uint32Array.of(7, 8, 9));
  });

  it('abort after a successful close is a no-op', async () => {
    const path = join(dir, 'l.hrl');
    const writer = await RecipientListWriter.create(path);
    await writer.write(Uint32Array.of(1));
    await writer.close();
    await writer.abort();
    expect(await loadRecipientList(path, { uinLimit: U32 })).toEqual(Uint32Array.of(1));
  });

  it('replaces a stale temp file left by a crashed writer', async () => {
    const path = join(dir, 'l.hrl');
    await writeFile(`${path}.tmp`, Buffer.alloc(1000, 0xff));
    const writer = await RecipientListWriter.create(path);
    await writer.write(Uint32Array.of(5, 6));
    await writer.close(ListFlags.SORTED);
    expect(await readdir(dir)).toEqual(['l.hrl']);
    expect(await loadRecipientList(path, { uinLimit: U32 })).toEqual(Uint32Array.of(5, 6));
  });

  it('checks flags before closing and stays open when they are wrong', async () => {
    const path = join(dir, 'l.hrl');
    const writer = await RecipientListWriter.create(path);
    await writer.write(Uint32Array.of(1, 2));
    await writer.write(Uint32Array.of(2, 3)); // repeat across batches
    await expect(writer.close(ListFlags.SORTED | ListFlags.UNIQUE)).rejects.toBeInstanceOf(ValidationError);
    await expect(writer.close(1 << 5)).rejects.toBeInstanceOf(ValidationError);
    const written = await writer.close(ListFlags.SORTED);
    expect(written.count).toBe(4);
    expect((await readRecipientListHeader(path)).flags).toBe(ListFlags.SORTED);

    const unsorted = await RecipientListWriter.create(join(dir, 'u.hrl'));
    await unsorted.write(Uint32Array.of(5));
    await unsorted.write(Uint32Array.of(4));
    await expect(unsorted.close(ListFlags.SORTED)).rejects.toBeInstanceOf(ValidationError);
    await unsorted.abort();
    expect(await readdir(dir)).toEqual(['l.hrl']);
  });

  it('refuses use after close and overlapping writes', async () => {
    const writer = await RecipientListWriter.create(join(dir, 'l.hrl'));
    const first = writer.write(randomUins(100_000));
    const overlap = writer.write(Uint32Array.of(1));
    await expect(overlap).rejects.toMatchObject({ code: ErrorCodes.INTERNAL });
    await first;
    await writer.close();
    const late = writer.write(Uint32Array.of(1));
    await expect(late).rejects.toBeInstanceOf(HeraldError);
    await expect(writer.close()).rejects.toMatchObject({ code: ErrorCodes.INTERNAL });
    expectSameUins(await collect(join(dir, 'l.hrl')), randomUins(100_000));
  });

  it('an abort during a pending write ends the write with an error and leaves no file', async () => {
    const writer = await RecipientListWriter.create(join(dir, 'l.hrl'));
    const pending = writer.write(randomUins(2_000_000));
    await writer.abort();
    await expect(pending).rejects.toBeInstanceOf(HeraldError);
    expect(await readdir(dir)).toEqual([]);
  });

  it('create fails cleanly when the directory does not exist', async () => {
    await expect(RecipientListWriter.create(join(dir, 'missing', 'l.hrl'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(dir)).toEqual([]);
  });
});
