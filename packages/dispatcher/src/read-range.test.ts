import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeListHeader, ListFlags } from '@herald/core/recipient-list';
import { ListFormatError } from '@herald/core';
import { writeRecipientListFile } from '@herald/audience';
import { makeTempDir, rejectsWithCode, type TempDir } from '@herald/testing';
import { readListRange } from './read-range';

let dir: TempDir;
let path: string;
/** 10 sorted uins, including both ends of the 32-bit space. */
const UINS = Uint32Array.of(0, 3, 17, 256, 65_535, 65_536, 1_000_000, 2 ** 31, 2 ** 32 - 2, 2 ** 32 - 1);

beforeAll(async () => {
  dir = await makeTempDir('herald-read-range-');
  path = join(dir.path, 'f_1.hrl');
  await writeRecipientListFile(path, UINS, ListFlags.SORTED | ListFlags.UNIQUE);
});
afterAll(async () => {
  await dir.remove();
});

async function batches(from: number, end: number, batchSize: number, file = path): Promise<number[][]> {
  const out: number[][] = [];
  for await (const batch of readListRange(file, from, end, batchSize)) out.push([...batch]);
  return out;
}

describe('readListRange', () => {
  it('reads the whole list in batches of the given size, the last one short', async () => {
    expect(await batches(0, 10, 4)).toEqual([
      [0, 3, 17, 256],
      [65_535, 65_536, 1_000_000, 2 ** 31],
      [2 ** 32 - 2, 2 ** 32 - 1],
    ]);
  });

  it('reads one batch when the batch is larger than the range', async () => {
    expect(await batches(0, 10, 4096)).toEqual([[...UINS]]);
  });

  it('starts at a resume point and stops before end', async () => {
    expect(await batches(3, 8, 2)).toEqual([[256, 65_535], [65_536, 1_000_000], [2 ** 31]]);
    expect(await batches(9, 10, 3)).toEqual([[2 ** 32 - 1]]);
  });

  it('yields nothing for an empty range', async () => {
    expect(await batches(4, 4, 2)).toEqual([]);
  });

  it('yields fresh arrays: a kept batch is not overwritten by the next read', async () => {
    const kept: Uint32Array[] = [];
    for await (const batch of readListRange(path, 0, 10, 3)) kept.push(batch);
    expect(kept.map((b) => [...b]).flat()).toEqual([...UINS]);
  });

  it('fails with LIST_TRUNCATED for a range past the end of the file, after the batches that exist', async () => {
    const seen: number[][] = [];
    const read = (async () => {
      for await (const batch of readListRange(path, 6, 12, 2)) seen.push([...batch]);
    })();
    const error = await rejectsWithCode(read, 'LIST_TRUNCATED');
    expect(error).toBeInstanceOf(ListFormatError);
    expect(seen).toEqual([
      [1_000_000, 2 ** 31],
      [2 ** 32 - 2, 2 ** 32 - 1],
    ]);
    await rejectsWithCode(batches(20, 21, 2), 'LIST_TRUNCATED');
  });

  it('refuses a uin wider than 32 bits instead of truncating it', async () => {
    const wide = join(dir.path, 'f_2.hrl');
    const body = Buffer.alloc(16);
    body.writeBigUInt64LE(5n, 0);
    body.writeBigUInt64LE(2n ** 32n + 5n, 8);
    await writeFile(wide, Buffer.concat([encodeListHeader({ flags: 0, count: 2, bodyCrc: 0 }), body]));
    expect(await batches(0, 1, 1, wide)).toEqual([[5]]);
    await rejectsWithCode(batches(0, 2, 2, wide), 'LIST_UIN_OUT_OF_RANGE');
  });
});
