import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListFormatError } from '@herald/core';
import { makeTempDir, type TempDir } from '@herald/testing';
import { loadRecipientList, readRecipientList } from './list-reader';
import { writeRecipientListFile } from './list-writer';

describe('readRecipientList', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-list-reader-');
  });
  afterEach(async () => {
    await dir.remove();
  });

  async function codeOf(run: () => Promise<unknown>): Promise<string> {
    const error = await run().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ListFormatError);
    return (error as ListFormatError).code;
  }

  // Found by list-files.fuzz.test.ts: a truncated file whose first uin is out of range. The streaming
  // reader decoded the first chunk's body before checking the file's length, so it said
  // LIST_UIN_OUT_OF_RANGE where the loader (and the reader's own doc) say LIST_TRUNCATED.
  it('checks the length before decoding any body byte, so it agrees with loadRecipientList', async () => {
    const path = join(dir.path, 'l_truncated.hrl');
    // Header: count 2 (16 body bytes declared); body: 8 bytes, one uin 65536.
    await writeFile(
      path,
      Buffer.from([
        72, 82, 76, 83, 1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 35, 170, 180, 113, 227, 111, 97, 177, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 1, 0, 0, 0, 0, 0,
      ]),
    );
    const uinLimit = 65536;
    expect(await codeOf(() => loadRecipientList(path, { uinLimit }))).toBe('LIST_TRUNCATED');
    for (const chunkBytes of [1, 13, 1 << 20]) {
      expect(
        await codeOf(async () => {
          for await (const batch of readRecipientList(path, { uinLimit, chunkBytes })) void batch;
        }),
      ).toBe('LIST_TRUNCATED');
    }
  });
});

describe('loadRecipientList, shared', () => {
  it('loads the same uins into a SharedArrayBuffer', async () => {
    const dir = await makeTempDir('herald-list-loader-');
    try {
      const path = join(dir.path, 'l.hrl');
      await writeRecipientListFile(path, Uint32Array.of(9, 2, 2 ** 32 - 1));
      const shared = await loadRecipientList(path, { uinLimit: 2 ** 32, shared: true, chunkBytes: 8 });
      expect(shared.buffer).toBeInstanceOf(SharedArrayBuffer);
      expect([...shared]).toEqual([...(await loadRecipientList(path, { uinLimit: 2 ** 32 }))]);
      expect([...shared]).toEqual([9, 2, 2 ** 32 - 1]);
    } finally {
      await dir.remove();
    }
  });
});
