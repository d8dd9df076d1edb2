import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRemovedSets } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import { makeTempDir, type TempDir } from '@herald/testing';
import { walkAudience, type WalkedRecipient } from './audience-walk';
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
    const options = { uinLimit: 2 ** 20, chunkBytes: 64, sample: sample.length, after: kept[20] };
    for await (const row of walkAudience(listPath, removedPath, options)) rows.push(row);
    const listed = rows.filter((r) => r.position !== undefined);
    expect(listed.map((r) => r.uin)).toEqual([...kept.filter((uin) => uin > kept[20]!)]);
    for (const row of listed) expect(row.position).toBe(await positionInList(listPath, row.uin, sample.length));
    expect(rows.map((r) => r.uin)).toEqual([...rows.map((r) => r.uin)].sort((a, b) => a - b));
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
