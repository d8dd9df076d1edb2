import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mulberry32 } from '@herald/core';
import type { FollowChange } from '@herald/core/audience';
import { LevelFollowerStore } from '@herald/store-level';
import { makeTempDir, readAudience, spreadUins, type TempDir } from '@herald/testing';
import { FollowerCopies } from './follower-copy';
import { ListRepository } from './list-repository';
import { importFromSource } from './source-import';

const follow = (uin: number, at: number, following = true): FollowChange => ({ accountId: 'big', uin, following, at });

describe('FollowerCopies', () => {
  let dir: TempDir;
  let truth: LevelFollowerStore;
  let lists: ListRepository;
  let copies: FollowerCopies;
  const audience = [...spreadUins(11, 3000)];

  beforeEach(async () => {
    dir = await makeTempDir('herald-follower-copies-');
    truth = await LevelFollowerStore.open(join(dir.path, 'followers'));
    lists = new ListRepository(join(dir.path, 'lists'));
    const next = mulberry32(5);
    copies = new FollowerCopies(join(dir.path, 'copies'), { random: () => next() / 2 ** 32 });
    await truth.applyFollows(audience.map((uin) => follow(uin, 1)));
    // The copy is made the way the jobs make it: a list read from the source of truth.
    const { meta } = await importFromSource(lists, truth.followers('big'), { accountId: 'big', uinLimit: 2 ** 32 });
    await copies.install('big', lists.pathOf(meta.id));
  });
  afterEach(async () => {
    await truth.close();
    await dir.remove();
  });

  const fromTruth = async () => (await readAudience(truth.followers('big'))).uins;
  const fromCopy = async () => (await readAudience(copies.source('big', truth, { batchSize: 256 }))).uins;

  it('reads the copy once its samples agree with the source of truth', async () => {
    expect(await copies.has('big')).toBe(true);
    expect(await copies.has('small')).toBe(false);
    expect(await fromCopy()).toEqual(await fromTruth());
    expect(copies.lastVerdict('big')).toMatchObject({ usable: true, at: 'copy', mean: 0, worst: 0 });
    expect(copies.lastVerdict('big')!.rates).toHaveLength(10);
  });

  it('merges the changes that arrive after the copy was made, in real time', async () => {
    const changes = [
      follow(7, 5),
      follow(audience[10]!, 5, false),
      follow(2 ** 32 - 1, 5),
      follow(audience[20]!, 5, false),
      follow(audience[20]!, 6),
    ];
    await truth.applyFollows(changes);
    expect(await copies.applyFollows(changes)).toEqual({ applied: 5, stale: 0 });
    expect(await copies.applyFollows([{ ...follow(9, 5), accountId: 'nocopy' }])).toEqual({ applied: 0, stale: 1 });
    expect(await fromCopy()).toEqual(await fromTruth());
    expect(copies.lastVerdict('big')).toMatchObject({ at: 'copy' });
  });

  it('falls back to the source of truth when the copy has drifted past the sampling limits', async () => {
    // A fifth of the followers left, and the copy never heard of it.
    await truth.applyFollows(audience.filter((_, i) => i % 5 === 0).map((uin) => follow(uin, 9, false)));
    const read = await fromCopy();
    expect(copies.lastVerdict('big')).toMatchObject({ usable: false, at: 'source' });
    expect(copies.lastVerdict('big')!.mean).toBeGreaterThan(0.1);
    expect(read).toEqual(await fromTruth());
  });

  it('uses a copy a little off (under 2% on average) as it is', async () => {
    await truth.applyFollows([follow(audience[1]!, 9, false)]);
    await fromCopy();
    expect(copies.lastVerdict('big')).toMatchObject({ usable: true, at: 'copy' });
  });

  it('falls back when the copy cannot be read', async () => {
    await writeFile(join(dir.path, 'copies', 'big.hrl'), 'not a list');
    expect(await fromCopy()).toEqual(await fromTruth());
    expect(copies.lastVerdict('big')).toMatchObject({ usable: false, at: 'source' });
  });

  it('refuses to install a list that is not sorted and unique', async () => {
    const meta = await lists.importStream(
      (async function* () {
        const { encodeRecipientList } = await import('@herald/core/recipient-list');
        yield encodeRecipientList([5, 3]);
      })(),
      { accountId: 'big', uinLimit: 2 ** 32, maxBytes: 1 << 20 },
    );
    await expect(copies.install('big', lists.pathOf(meta.id))).rejects.toThrow(/not sorted and unique/);
  });
});
