import { truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRemovedSets } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import { makeTempDir, type TempDir } from '@herald/testing';
import { walkAudience, type AudienceWalkOptions, type WalkedRecipient } from './audience-walk';
import { loadRecipientList } from './list-reader';
import { writeRecipientListFile } from './list-writer';
import { positionInList, removalOf } from './recipient-lookup';

describe('walkAudience', () => {
  let dir: TempDir;
  let listPath: string;
  let removedPath: string;

  beforeEach(async () => {
    dir = await makeTempDir('herald-audience-walk-');
    listPath = join(dir.path, 'f_1.hrl');
    removedPath = join(dir.path, 'f_1.removed');
    // Uploaded 5, 10, 10, 20, 20, 30, 40, 50, 50: 10 and 50 repeated, 20 and 50 blacklisted, 40 over frequency.
    await writeRecipientListFile(listPath, Uint32Array.of(5, 10, 30), ListFlags.SORTED | ListFlags.UNIQUE);
    await writeFile(
      removedPath,
      encodeRemovedSets(
        [
          { reason: 'duplicate', uins: Uint32Array.of(10, 20, 50) },
          { reason: 'blacklisted', uins: Uint32Array.of(20, 50) },
          { reason: 'over_frequency', uins: Uint32Array.of(40) },
        ],
        true,
      ),
    );
  });
  afterEach(() => dir.remove());

  const walk = async (after?: number): Promise<WalkedRecipient[]> => {
    const out: WalkedRecipient[] = [];
    for await (const row of walkAudience(listPath, removedPath, { uinLimit: 2 ** 20, after })) out.push(row);
    return out;
  };

  it('meets every distinct uin once, ascending, with the facts a lookup finds', async () => {
    const rows = await walk();
    expect(rows.map((r) => r.uin)).toEqual([5, 10, 20, 30, 40, 50]);
    for (const row of rows)
      expect(row).toEqual({
        uin: row.uin,
        position: await positionInList(listPath, row.uin),
        removal: await removalOf(removedPath, row.uin),
      });
    expect(rows[2]).toMatchObject({ removal: { reason: 'blacklisted', duplicateCopies: 1 } });
  });

  it('starts after the cursor, still counting positions from the start', async () => {
    expect((await walk(10)).map((r) => [r.uin, r.position])).toEqual([
      [20, undefined],
      [30, 2],
      [40, undefined],
      [50, undefined],
    ]);
    expect(await walk(50)).toEqual([]);
  });

  it('gives every row the lookup facts across list and removed-set chunks', async () => {
    // 3,000 uins: every third removed (some by two links), every fifth kept one also duplicated.
    const all = Uint32Array.from({ length: 3_000 }, (_, i) => i * 97 + (i % 13));
    const kept = all.filter((_, i) => i % 3 !== 0);
    const gone = all.filter((_, i) => i % 3 === 0);
    await writeRecipientListFile(listPath, kept, ListFlags.SORTED | ListFlags.UNIQUE);
    const duplicated = all.filter((_, i) => i % 5 === 0);
    await writeFile(
      removedPath,
      encodeRemovedSets(
        [
          { reason: 'duplicate', uins: duplicated },
          { reason: 'blacklisted', uins: gone.filter((_, i) => i % 2 === 0) },
          { reason: 'over_frequency', uins: gone },
        ],
        true,
      ),
    );
    const rows: WalkedRecipient[] = [];
    for await (const row of walkAudience(listPath, removedPath, { uinLimit: 2 ** 20, chunkBytes: 64, after: all[10] }))
      rows.push(row);
    expect(rows.map((r) => r.uin)).toEqual([...all.filter((uin) => uin > all[10]!)]);
    for (const row of rows)
      expect(row).toEqual({
        uin: row.uin,
        position: await positionInList(listPath, row.uin),
        removal: await removalOf(removedPath, row.uin),
      });
  });

  it("merges a canary's two sorted runs into uin order, each uin at its own position, across chunks", async () => {
    // 600 kept uins; every seventh is the sample, written first (docs/rollouts.md), the rest after it.
    const kept = Uint32Array.from({ length: 600 }, (_, i) => i * 11 + 3);
    const sample = kept.filter((_, i) => i % 7 === 0);
    const rest = kept.filter((_, i) => i % 7 !== 0);
    await writeRecipientListFile(listPath, Uint32Array.from([...sample, ...rest]), ListFlags.UNIQUE);
    const rows: WalkedRecipient[] = [];
    const runs = [
      { start: 0, end: sample.length },
      { start: sample.length, end: Infinity },
    ];
    const options = { uinLimit: 2 ** 20, chunkBytes: 64, runs, after: kept[20] };
    for await (const row of walkAudience(listPath, removedPath, options)) rows.push(row);
    const listed = rows.filter((r) => r.position !== undefined);
    expect(listed.map((r) => r.uin)).toEqual([...kept.filter((uin) => uin > kept[20]!)]);
    for (const row of listed) expect(row.position).toBe(await positionInList(listPath, row.uin, runs));
    expect(rows.map((r) => r.uin)).toEqual([...rows.map((r) => r.uin)].sort((a, b) => a - b));
  });

  describe('over a list written as sorted runs', () => {
    // 60 uins over five runs: empty, every other uin, one uin, the rest, empty.
    const kept = Array.from({ length: 60 }, (_, i) => i * 5 + 1);
    const single = kept[31]!;
    const evens = kept.filter((uin, i) => i % 2 === 0 && uin !== single);
    const odds = kept.filter((uin, i) => i % 2 === 1 && uin !== single);
    const runs = [
      { start: 0, end: 0 },
      { start: 0, end: evens.length },
      { start: evens.length, end: evens.length + 1 },
      { start: evens.length + 1, end: kept.length },
      { start: kept.length, end: kept.length },
    ];
    // Removed uins between and beyond the listed ones, one also below the first.
    const gone = Uint32Array.from([0, ...kept.filter((_, i) => i % 3 === 0).map((uin) => uin + 2), 400, 401]);

    beforeEach(async () => {
      await writeRecipientListFile(listPath, Uint32Array.from([...evens, single, ...odds]), ListFlags.UNIQUE);
      await writeFile(
        removedPath,
        encodeRemovedSets(
          [
            { reason: 'duplicate', uins: gone.filter((_, i) => i % 4 === 0) },
            { reason: 'blacklisted', uins: gone },
          ],
          true,
        ),
      );
    });

    const walkRuns = async (options: Partial<AudienceWalkOptions>): Promise<WalkedRecipient[]> => {
      const out: WalkedRecipient[] = [];
      for await (const row of walkAudience(listPath, removedPath, { uinLimit: 2 ** 20, ...options })) out.push(row);
      return out;
    };

    it.each<[string, Partial<AudienceWalkOptions>]>([
      ['one chunk', {}],
      ['blocks and chunks of two uins, after a cursor', { chunkBytes: 16, after: kept[6]! }],
      ['blocks of one uin, after a removed uin', { chunkBytes: 8, after: gone[3]! }],
    ])(
      'merges every uin once, ascending, at the position the lookup finds and the file holds (%s)',
      async (_, options) => {
        const rows = await walkRuns({ ...options, runs });
        const after = options.after ?? -1;
        const everyone = [...new Set([...kept, ...gone])].sort((a, b) => a - b);
        expect(rows.map((r) => r.uin)).toEqual(everyone.filter((uin) => uin > after));
        const file = await loadRecipientList(listPath, { uinLimit: 2 ** 20 });
        for (const row of rows) {
          expect(row).toEqual({
            uin: row.uin,
            position: await positionInList(listPath, row.uin, runs),
            removal: await removalOf(removedPath, row.uin),
          });
          if (row.position !== undefined) expect(file[row.position]).toBe(row.uin);
        }
        expect(rows.filter((r) => r.position !== undefined)).toHaveLength(kept.filter((uin) => uin > after).length);
      },
    );

    it('walks a sorted list in file order whatever the runs say', async () => {
      await writeRecipientListFile(listPath, Uint32Array.from(kept), ListFlags.SORTED | ListFlags.UNIQUE);
      const rows = (await walkRuns({ runs: [{ start: 0, end: 2 }] })).filter((r) => r.position !== undefined);
      expect(rows.map((r) => [r.uin, r.position])).toEqual(kept.map((uin, i) => [uin, i]));
    });

    it('refuses the list without its runs, a list that is not unique, and runs past its end', async () => {
      await expect(walkRuns({})).rejects.toMatchObject({ code: 'LIST_BAD_HEADER' });
      await expect(
        walkRuns({
          runs: [
            { start: 0, end: 30 },
            { start: 70, end: 80 },
          ],
        }),
      ).rejects.toMatchObject({
        code: 'LIST_TRUNCATED',
      });
      await expect(walkRuns({ runs: [{ start: 5, end: 4 }] })).rejects.toMatchObject({ code: 'VALIDATION_FAILED' });
      await writeRecipientListFile(listPath, Uint32Array.of(7, 3, 7), 0);
      await expect(walkRuns({ runs })).rejects.toMatchObject({ code: 'LIST_BAD_HEADER' });
    });

    it('refuses a list shorter than its header says, and a uin outside the uin space', async () => {
      await truncate(listPath, 32 + 8 * 10);
      await expect(walkRuns({ runs })).rejects.toMatchObject({ code: 'LIST_TRUNCATED' });
      await writeRecipientListFile(listPath, Uint32Array.from([...evens, single, ...odds]), ListFlags.UNIQUE);
      await expect(walkRuns({ runs, uinLimit: 256 })).rejects.toMatchObject({
        code: 'LIST_UIN_OUT_OF_RANGE',
        details: { uin: evens.find((uin) => uin >= 256), position: evens.findIndex((uin) => uin >= 256), limit: 256 },
      });
    });
  });

  it('walks the filtered list alone, unrecorded, for a task from before the removed sets', async () => {
    removedPath = join(dir.path, 'missing.removed');
    expect(await walk()).toEqual([
      { uin: 5, position: 0, removal: { recorded: false } },
      { uin: 10, position: 1, removal: { recorded: false } },
      { uin: 30, position: 2, removal: { recorded: false } },
    ]);
  });
});
