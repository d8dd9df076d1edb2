import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListFlags } from '@herald/core/recipient-list';
import { writeRecipientListFile } from '@herald/audience';
import { makeTempDir, type TempDir } from '@herald/testing';
import { THREAD_WRITE_FROM, writeListInThread } from './list-write-thread';

let dir: TempDir;
beforeEach(async () => {
  dir = await makeTempDir('herald-list-thread-');
});
afterEach(() => dir.remove());

/** Sorted, distinct uins, long enough to be written in a worker thread. */
function longList(onShared: boolean): Uint32Array {
  const length = THREAD_WRITE_FROM + 3;
  const uins = new Uint32Array(onShared ? new SharedArrayBuffer(length * 4) : new ArrayBuffer(length * 4));
  for (let i = 0; i < length; i++) uins[i] = i * 3 + 1;
  return uins;
}

describe('writeListInThread', () => {
  it.each([true, false])(
    'writes a long list (in shared memory: %s) byte for byte as this thread would',
    async (onShared) => {
      const uins = longList(onShared);
      const flags = ListFlags.SORTED | ListFlags.UNIQUE;
      const written = await writeListInThread(join(dir.path, 'thread.hrl'), uins, flags);
      const here = await writeRecipientListFile(join(dir.path, 'here.hrl'), uins, flags);
      expect(written).toEqual(here);
      const [a, b] = await Promise.all([readFile(join(dir.path, 'thread.hrl')), readFile(join(dir.path, 'here.hrl'))]);
      expect(a.equals(b)).toBe(true);
    },
  );

  it("rethrows the worker's failure with its code", async () => {
    const write = writeListInThread(join(dir.path, 'missing-dir', 'l.hrl'), longList(true));
    await expect(write).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a false SORTED claim, naming it', async () => {
    const uins = longList(true).reverse();
    await expect(writeListInThread(join(dir.path, 'l.hrl'), uins, ListFlags.SORTED)).rejects.toThrow(/SORTED|sorted/);
  });
});
