import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRemovedSets } from '@herald/core/fate';
import { ListFlags } from '@herald/core/recipient-list';
import { makeTempDir, type TempDir } from '@herald/testing';
import { writeRecipientListFile } from './list-writer';
import { OpenTaskFiles, positionInList, removalOf, removedPathOf } from './recipient-lookup';

describe('recipient lookup', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-lookup-');
  });
  afterEach(() => dir.remove());

  it('finds every member of a sorted list at its position, and no one else', async () => {
    const uins = Uint32Array.from({ length: 1000 }, (_, i) => 3 * i + 1);
    const path = join(dir.path, 'f_1.hrl');
    await writeRecipientListFile(path, uins, ListFlags.SORTED | ListFlags.UNIQUE);
    for (const i of [0, 1, 499, 998, 999]) expect(await positionInList(path, uins[i]!)).toBe(i);
    for (const uin of [0, 2, 3 * 999 + 2, 2 ** 32 - 1]) expect(await positionInList(path, uin)).toBeUndefined();
  });

  it('refuses an unsorted list', async () => {
    const path = join(dir.path, 'l_1.hrl');
    await writeRecipientListFile(path, Uint32Array.of(5, 1), 0);
    await expect(positionInList(path, 5)).rejects.toMatchObject({ code: 'LIST_BAD_HEADER' });
  });

  describe('over a list written as sorted runs', () => {
    // Five runs: empty, three uins, one, two, empty; uins interleave across runs.
    const written = Uint32Array.of(4, 10, 31, 17, 2, 40);
    const runs = [
      { start: 0, end: 0 },
      { start: 0, end: 3 },
      { start: 3, end: 4 },
      { start: 4, end: 6 },
      { start: 6, end: 6 },
    ];
    let path: string;
    beforeEach(async () => {
      path = join(dir.path, 'f_1.hrl');
      await writeRecipientListFile(path, written, ListFlags.UNIQUE);
    });

    it('finds every uin at its position in its run, and no one else', async () => {
      for (const [position, uin] of written.entries()) expect(await positionInList(path, uin, runs)).toBe(position);
      for (const uin of [0, 3, 11, 18, 39, 41]) expect(await positionInList(path, uin, runs)).toBeUndefined();
      // A last run may end at Infinity: it ends with the list.
      expect(await positionInList(path, 40, [runs[1]!, { start: 3, end: Infinity }])).toBe(5);
      const files = await OpenTaskFiles.open(path, runs);
      try {
        expect(await files.positionOf(17)).toBe(3);
        expect(await files.positionOf(5)).toBeUndefined();
      } finally {
        await files.close();
      }
    });

    it('refuses the list without its runs, and runs that start past its end', async () => {
      await expect(positionInList(path, 4)).rejects.toMatchObject({ code: 'LIST_BAD_HEADER' });
      await expect(OpenTaskFiles.open(path)).rejects.toMatchObject({ code: 'LIST_BAD_HEADER' });
      await expect(positionInList(path, 4, [...runs, { start: 7, end: 9 }])).rejects.toMatchObject({
        code: 'LIST_TRUNCATED',
      });
    });

    it('searches a sorted list as one run whatever the runs say', async () => {
      await writeRecipientListFile(path, Uint32Array.of(2, 4, 10, 17, 31, 40), ListFlags.SORTED | ListFlags.UNIQUE);
      expect(await positionInList(path, 31, [{ start: 0, end: 1 }])).toBe(4);
    });
  });

  it('names the first non-dedupe link that removed a uin, counting its duplicate copies', async () => {
    const path = removedPathOf(join(dir.path, 'f_1.hrl'));
    expect(path).toBe(join(dir.path, 'f_1.removed'));
    const sets = [
      { reason: 'duplicate' as const, uins: Uint32Array.of(4, 4, 9) },
      { reason: 'blacklisted' as const, uins: Uint32Array.of(4, 6) },
      { reason: 'already_sent' as const, uins: Uint32Array.of(7) },
    ];
    await writeFile(path, encodeRemovedSets(sets, true));
    expect(await removalOf(path, 4)).toEqual({
      recorded: true,
      complete: true,
      reason: 'blacklisted',
      duplicateCopies: 2,
    });
    expect(await removalOf(path, 7)).toMatchObject({ reason: 'already_sent', duplicateCopies: 0 });
    expect(await removalOf(path, 9)).toEqual({ recorded: true, complete: true, reason: undefined, duplicateCopies: 1 });
    expect(await removalOf(path, 8)).toEqual({ recorded: true, complete: true, reason: undefined, duplicateCopies: 0 });
  });

  it('says the removals are not recorded when the file is missing', async () => {
    expect(await removalOf(join(dir.path, 'f_2.removed'), 4)).toEqual({ recorded: false });
  });
});
