import { join } from 'node:path';
import * as fc from 'fast-check';
import { ListFlags } from '@herald/core/recipient-list';
import { makeTempDir, type TempDir } from '@herald/testing';
import { applyChanges, scanFollowers } from './follower-scan';
import { writeRecipientListFile } from './list-writer';

describe('scanFollowers', () => {
  let dir: TempDir;
  beforeAll(async () => {
    dir = await makeTempDir('herald-follower-scan-');
  });
  afterAll(async () => {
    await dir.remove();
  });

  const set = (max: number) =>
    fc.uniqueArray(fc.integer({ min: 0, max }), { maxLength: 300 }).map((values) => Uint32Array.from(values).sort());

  it('answers the uins of the query that the file holds, whatever the block size', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(set(2000), set(2000), fc.integer({ min: 8, max: 4096 }), async (base, query, blockBytes) => {
        const path = join(dir.path, `base-${n++}.hrl`);
        await writeRecipientListFile(path, base, ListFlags.SORTED | ListFlags.UNIQUE);
        const inBase = new Set(base);
        expect([...(await scanFollowers(path, query, blockBytes))]).toEqual([...query].filter((u) => inBase.has(u)));
      }),
      { numRuns: 80 },
    );
  });

  it('reads uins up to 2^32 - 1 and stops at the end of either side', async () => {
    const path = join(dir.path, 'edges.hrl');
    await writeRecipientListFile(path, Uint32Array.of(0, 5, 2 ** 32 - 1), ListFlags.SORTED | ListFlags.UNIQUE);
    expect([...(await scanFollowers(path, Uint32Array.of(0, 2 ** 32 - 1)))]).toEqual([0, 2 ** 32 - 1]);
    expect([...(await scanFollowers(path, Uint32Array.of()))]).toEqual([]);
    expect([...(await scanFollowers(path, Uint32Array.of(6, 7)))]).toEqual([]);
  });

  it('refuses a file shorter than its header says, and a missing one', async () => {
    const { truncate } = await import('node:fs/promises');
    const path = join(dir.path, 'short.hrl');
    await writeRecipientListFile(path, Uint32Array.of(1, 2, 3), ListFlags.SORTED | ListFlags.UNIQUE);
    await truncate(path, 32 + 16);
    await expect(scanFollowers(path, Uint32Array.of(3))).rejects.toMatchObject({ code: 'LIST_TRUNCATED' });
    await expect(scanFollowers(join(dir.path, 'none.hrl'), Uint32Array.of(3))).rejects.toMatchObject({
      code: 'LIST_NOT_FOUND',
    });
  });
});

describe('applyChanges', () => {
  it('drops the unfollowed, adds the queried newcomers, and leaves the rest', () => {
    const query = Uint32Array.of(1, 2, 3, 4, 9);
    const changes = new Map([
      [2, { following: false, at: 5 }],
      [4, { following: true, at: 5 }],
      [7, { following: true, at: 5 }], // not asked about
      [1, { following: true, at: 5 }], // already in the base
    ]);
    expect([...applyChanges(Uint32Array.of(1, 2, 3), query, changes)]).toEqual([1, 3, 4]);
    expect([...applyChanges(Uint32Array.of(1, 2), query, new Map())]).toEqual([1, 2]);
  });
});
