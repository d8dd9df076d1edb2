/**
 * One table of damaged files, run through every way a list is read: the
 * streaming reader, the whole-file loader, the header reader and an upload
 * into the repository. Each must give the same ListFormatError code, and a
 * failed upload must leave nothing behind and lose nothing already stored.
 */
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeListHeader, encodeRecipientList } from '@herald/core/recipient-list';
import { ListFormatError, NotFoundError } from '@herald/core';
import { loadRecipientList, readRecipientList, readRecipientListHeader } from './list-reader';
import { ListRepository } from './list-repository';

const U32 = 2 ** 32;
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'herald-audience-corrupt-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** 1000 uins, 0..999 times 7 (so some exceed a small uinLimit). */
const UINS = Uint32Array.from({ length: 1000 }, (_, i) => i * 7);
const GOOD = encodeRecipientList(UINS);

function modified(edit: (bytes: Buffer) => Buffer): Buffer {
  return edit(Buffer.from(GOOD));
}

type Code = ListFormatError['code'];
interface Case {
  name: string;
  bytes: Buffer;
  code: Code;
  uinLimit?: number;
  /** The header alone is fine: readRecipientListHeader succeeds. */
  headerOk?: boolean;
}

const cases: Case[] = [
  { name: 'wrong magic', bytes: modified((b) => (b.write('XRLS', 0, 'latin1'), b)), code: 'LIST_BAD_MAGIC' },
  { name: 'unsupported version', bytes: modified((b) => (b.writeUInt16LE(2, 4), b)), code: 'LIST_UNSUPPORTED_VERSION' },
  {
    name: 'corrupt header (count changed, header CRC stale)',
    bytes: modified((b) => (b.writeUInt32LE(999, 8), b)),
    code: 'LIST_BAD_HEADER',
  },
  { name: 'empty file', bytes: Buffer.alloc(0), code: 'LIST_TRUNCATED' },
  { name: 'shorter than the header', bytes: GOOD.subarray(0, 20), code: 'LIST_TRUNCATED' },
  { name: 'truncated mid-body, on a uin boundary', bytes: GOOD.subarray(0, 32 + 8 * 500), code: 'LIST_TRUNCATED' },
  { name: 'truncated mid-body, inside a uin', bytes: GOOD.subarray(0, 32 + 8 * 500 + 3), code: 'LIST_TRUNCATED' },
  { name: 'trailing uin', bytes: Buffer.concat([GOOD, Buffer.alloc(8)]), code: 'LIST_TRAILING_BYTES' },
  { name: 'trailing stray bytes', bytes: Buffer.concat([GOOD, Buffer.from([1, 2, 3])]), code: 'LIST_TRAILING_BYTES' },
  {
    name: 'flipped body byte',
    bytes: modified((b) => ((b[32 + 8 * 10]! ^= 0x01), b)),
    code: 'LIST_CHECKSUM_MISMATCH',
    headerOk: true,
  },
  { name: 'uin above a small uinLimit', bytes: GOOD, uinLimit: 5000, code: 'LIST_UIN_OUT_OF_RANGE', headerOk: true },
  {
    name: 'uin beyond 2^32 (high word set)',
    bytes: modified((b) => ((b[32 + 8 * 3 + 4] = 1), b)),
    code: 'LIST_UIN_OUT_OF_RANGE',
    headerOk: true,
  },
];

/** Yields `bytes` in pieces of `size`, like an upload arriving over a socket. */
async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function drain(path: string, uinLimit: number, chunkBytes?: number): Promise<number> {
  let n = 0;
  for await (const batch of readRecipientList(path, chunkBytes === undefined ? { uinLimit } : { uinLimit, chunkBytes }))
    n += batch.length;
  return n;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(ListFormatError);
    return (error as ListFormatError).code;
  }
  throw new Error('expected a ListFormatError, but the call succeeded');
}

describe.each(cases)('$name', ({ bytes, code, uinLimit = U32, headerOk = false }) => {
  it(`readRecipientList gives ${code}`, async () => {
    const path = join(dir, 'bad.hrl');
    await writeFile(path, bytes);
    for (const chunkBytes of [1, 13, 4096, undefined])
      expect(await codeOf(drain(path, uinLimit, chunkBytes))).toBe(code);
  });

  it(`loadRecipientList gives ${code}`, async () => {
    const path = join(dir, 'bad.hrl');
    await writeFile(path, bytes);
    for (const chunkBytes of [1, 13, undefined]) {
      expect(
        await codeOf(loadRecipientList(path, chunkBytes === undefined ? { uinLimit } : { uinLimit, chunkBytes })),
      ).toBe(code);
    }
  });

  it(`readRecipientListHeader ${headerOk ? 'accepts the header' : `gives ${code}`}`, async () => {
    const path = join(dir, 'bad.hrl');
    await writeFile(path, bytes);
    if (headerOk) expect((await readRecipientListHeader(path)).count).toBe(UINS.length);
    else expect(await codeOf(readRecipientListHeader(path))).toBe(code);
  });

  it(`importStream gives ${code}, leaves no file and keeps earlier lists`, async () => {
    const repo = new ListRepository(dir);
    const earlier = await repo.importStream(chunked(GOOD, 4096), { accountId: 'a', uinLimit: U32, maxBytes: 1 << 20 });
    for (const size of [1, 13, 4096, bytes.length + 1]) {
      expect(
        await codeOf(repo.importStream(chunked(bytes, size), { accountId: 'a', uinLimit, maxBytes: 1 << 20 })),
      ).toBe(code);
      expect(await readdir(dir)).toEqual([`${earlier.id}.hrl`]);
    }
    expect(await loadRecipientList(repo.pathOf(earlier.id), { uinLimit: U32 })).toEqual(UINS);
  });
});

describe('a header-only list (count 0)', () => {
  const bytes = encodeListHeader({ flags: 0, count: 0, bodyCrc: 0 });

  it('is a valid, empty file for the readers', async () => {
    const path = join(dir, 'empty.hrl');
    await writeFile(path, bytes);
    expect(await drain(path, U32)).toBe(0);
    expect(await loadRecipientList(path, { uinLimit: U32 })).toEqual(new Uint32Array(0));
    expect((await readRecipientListHeader(path)).count).toBe(0);
  });

  it('is refused on upload with LIST_EMPTY, leaving no file', async () => {
    const repo = new ListRepository(dir);
    expect(
      await codeOf(repo.importStream(chunked(bytes, 7), { accountId: 'a', uinLimit: U32, maxBytes: 1 << 20 })),
    ).toBe('LIST_EMPTY');
    expect(await readdir(dir)).toEqual([]);
  });

  it('followed by junk is LIST_TRAILING_BYTES everywhere', async () => {
    const path = join(dir, 'junk.hrl');
    const junk = Buffer.concat([bytes, Buffer.alloc(8)]);
    await writeFile(path, junk);
    expect(await codeOf(drain(path, U32))).toBe('LIST_TRAILING_BYTES');
    expect(await codeOf(loadRecipientList(path, { uinLimit: U32 }))).toBe('LIST_TRAILING_BYTES');
    const repo = new ListRepository(dir);
    expect(
      await codeOf(repo.importStream(chunked(junk, 5), { accountId: 'a', uinLimit: U32, maxBytes: 1 << 20 })),
    ).toBe('LIST_TRAILING_BYTES');
  });
});

describe('a missing file', () => {
  it('is NotFoundError LIST_NOT_FOUND from every reader', async () => {
    const path = join(dir, 'nope.hrl');
    for (const attempt of [
      drain(path, U32),
      loadRecipientList(path, { uinLimit: U32 }),
      readRecipientListHeader(path),
    ]) {
      await expect(attempt).rejects.toBeInstanceOf(NotFoundError);
    }
    await expect(loadRecipientList(path, { uinLimit: U32 })).rejects.toMatchObject({ code: 'LIST_NOT_FOUND' });
  });
});
