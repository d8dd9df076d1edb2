import { open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { encodeRemovedSets } from '@herald/core/fate';
import type { FilterReason } from '@herald/core/task';
import { seededRandom } from '@herald/core';
import { ListFlags } from '@herald/core/recipient-list';
import { makeTempDir, type TempDir } from '@herald/testing';
import { writeRecipientListFile } from './list-writer';
import { OpenTaskFiles, removalOf, removedPathOf } from './recipient-lookup';
import { SortedCells } from './sorted-cells';

/** The index of the first `uin` in ascending `cells[from, to)`, the plain way. */
function firstIndexOf(cells: ArrayLike<number>, uin: number, from: number, to: number): number | undefined {
  for (let i = from; i < to; i++) if (cells[i] === uin) return i;
  return undefined;
}

/** `n` ascending uins below 2^32 with runs of repeats, from `random`. */
function ascendingWithRepeats(n: number, random: () => number): Uint32Array {
  const cells = new Uint32Array(n);
  let uin = Math.floor(random() * 10);
  for (let i = 0; i < n; i++) {
    if (random() > 0.1) uin += 1 + Math.floor(random() * 5);
    cells[i] = uin;
  }
  return cells;
}

describe('SortedCells', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-sorted-cells-');
  });
  afterEach(() => dir.remove());

  // Sizes around the block (512 cells) and the remembered levels, 4- and 8-byte cells, at an offset.
  it.each([
    [1, 4],
    [511, 8],
    [513, 4],
    [5_000, 8],
    [40_000, 4],
  ] as const)(
    'finds the first of each uin in %i cells of %i bytes, in any range, asked again and again',
    async (n, bytes) => {
      const random = seededRandom(n * bytes);
      const cells = ascendingWithRepeats(n, random);
      const offset = 24;
      const body = Buffer.alloc(offset + n * bytes);
      cells.forEach((uin, i) => {
        if (bytes === 4) body.writeUInt32LE(uin, offset + i * 4);
        else body.writeBigUInt64LE(BigInt(uin), offset + i * 8);
      });
      const path = join(dir.path, 'cells');
      await writeFile(path, body);
      const file = await open(path, 'r');
      try {
        const searched = new SortedCells(file, path, offset, n, bytes, 'cells');
        const last = cells[n - 1]!;
        // Twice over: the second pass answers from the remembered probes and blocks.
        for (let pass = 0; pass < 2; pass++)
          for (let k = 0; k < 400; k++) {
            const uin = k % 5 === 0 ? cells[Math.floor(random() * n)]! : Math.floor(random() * (last + 10));
            const from = k % 3 === 0 ? Math.floor(random() * n) : 0;
            const to = k % 3 === 0 ? from + Math.floor(random() * (n - from + 1)) : n;
            expect([uin, from, to, await searched.indexOf(uin, from, to)]).toEqual([
              uin,
              from,
              to,
              firstIndexOf(cells, uin, from, to),
            ]);
          }
      } finally {
        await file.close();
      }
    },
  );

  it('says LIST_TRUNCATED for a file shorter than its count', async () => {
    const path = join(dir.path, 'short');
    await writeFile(path, Buffer.alloc(4 * 100));
    const file = await open(path, 'r');
    try {
      await expect(new SortedCells(file, path, 0, 2_000, 4, 'cells').indexOf(7)).rejects.toMatchObject({
        code: 'LIST_TRUNCATED',
      });
    } finally {
      await file.close();
    }
  });
});

describe('OpenTaskFiles', () => {
  let dir: TempDir;
  beforeEach(async () => {
    dir = await makeTempDir('herald-open-task-files-');
  });
  afterEach(() => dir.remove());

  it('answers positions and removals as the one-off lookups do', async () => {
    const random = seededRandom(19);
    const all = Uint32Array.from({ length: 20_000 }, (_, i) => 2 * i + 1);
    const listPath = join(dir.path, 'f_1.hrl');
    const kept = all.filter((_, i) => i % 4 !== 0);
    await writeRecipientListFile(listPath, kept, ListFlags.SORTED | ListFlags.UNIQUE);
    const removedOnes = all.filter((_, i) => i % 4 === 0);
    const sections: { reason: FilterReason; uins: Uint32Array }[] = [
      {
        reason: 'duplicate',
        uins: Uint32Array.from([...kept.slice(0, 300), ...kept.slice(0, 100)].sort((a, b) => a - b)),
      },
      { reason: 'blacklisted', uins: removedOnes.filter((_, i) => i % 2 === 0) },
      { reason: 'already_sent', uins: removedOnes.filter((_, i) => i % 2 === 1) },
    ];
    await writeFile(removedPathOf(listPath), encodeRemovedSets(sections, true));
    const files = await OpenTaskFiles.open(listPath);
    try {
      for (let k = 0; k < 2_000; k++) {
        const uin = Math.floor(random() * 40_010);
        const position = kept.indexOf(uin);
        expect([uin, await files.positionOf(uin)]).toEqual([uin, position < 0 ? undefined : position]);
        expect([uin, await files.removalOf(uin)]).toEqual([uin, await removalOf(removedPathOf(listPath), uin)]);
      }
    } finally {
      await files.close();
    }
  });

  it('answers a task without removed sets as not recorded', async () => {
    const listPath = join(dir.path, 'f_2.hrl');
    await writeRecipientListFile(listPath, Uint32Array.of(3, 5), ListFlags.SORTED | ListFlags.UNIQUE);
    const files = await OpenTaskFiles.open(listPath);
    try {
      expect(await files.positionOf(5)).toBe(1);
      expect(await files.removalOf(4)).toEqual({ recorded: false });
    } finally {
      await files.close();
    }
  });
});
