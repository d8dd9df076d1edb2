import { readFile } from 'node:fs/promises';
import fc from 'fast-check';
import { encodeRecipientList, ListFlags } from '@herald/core/recipient-list';
import { makeTempDir, type TempDir } from '@herald/testing';
import { loadRecipientList } from './list-reader';
import { inRunOrder, writeListInRuns, type ListInRuns } from './runs-writer';

let dir: TempDir;
beforeAll(async () => {
  dir = await makeTempDir('herald-runs-writer-');
});
afterAll(() => dir.remove());

/** `uins` spread over `runCount` runs by `pick`, with the runs their counts give. */
function listOf(uins: number[], runCount: number, pick: (uin: number, i: number) => number): ListInRuns {
  const runOf = Uint8Array.from(uins, pick);
  const counts = Array.from({ length: runCount }, (_, r) => runOf.filter((x) => x === r).length);
  let start = 0;
  const runs = counts.map((count) => ({ start, end: (start += count) }));
  return { uins: Uint32Array.from(uins), runOf, runs };
}

describe('writeListInRuns', () => {
  it('writes the same file as the list laid out in memory and encoded whole, byte for byte', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.nat(2 ** 32 - 1), { maxLength: 400 }),
        fc.integer({ min: 1, max: 30 }),
        fc.nat(),
        async (distinct, runCount, seed) => {
          const sorted = distinct.sort((a, b) => a - b);
          const list = listOf(sorted, runCount, (uin) => ((uin ^ seed) >>> 0) % runCount);
          const path = `${dir.path}/runs-${n++}.hrl`;
          expect(await writeListInRuns(path, list)).toMatchObject({ count: sorted.length });
          const expected = encodeRecipientList(inRunOrder(list), ListFlags.UNIQUE);
          expect((await readFile(path)).equals(expected)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('writes a list longer than a block, runs crossing blocks, and reads back with its checksum checked', async () => {
    const uins = Array.from({ length: 1_300_000 }, (_, i) => i * 3 + 1);
    const list = listOf(uins, 24, (uin) => ((uin * 2654435761) % 2 ** 32) % 24);
    const path = `${dir.path}/long.hrl`;
    await writeListInRuns(path, list);
    const read = await loadRecipientList(path, { uinLimit: 2 ** 32 });
    expect(Buffer.from(read.buffer).equals(Buffer.from(inRunOrder(list).buffer))).toBe(true);
  });

  it('refuses runs that do not tile the list, and a SORTED claim, writing nothing', async () => {
    const list = listOf([1, 2, 3, 4], 2, (uin) => uin % 2);
    const path = `${dir.path}/refused.hrl`;
    await expect(
      writeListInRuns(path, {
        ...list,
        runs: [
          { start: 0, end: 1 },
          { start: 1, end: 4 },
        ],
      }),
    ).rejects.toThrow(/run 0 is \[0, 1\), but its uins fill \[0, 2\)/);
    await expect(writeListInRuns(path, { ...list, runOf: Uint8Array.of(0, 1, 2, 0) })).rejects.toThrow(/goes to run 2/);
    await expect(writeListInRuns(path, list, ListFlags.SORTED | ListFlags.UNIQUE)).rejects.toThrow(/SORTED/);
    await expect(readFile(path)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
