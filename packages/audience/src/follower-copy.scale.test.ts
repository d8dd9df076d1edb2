/**
 * Local follower copies (docs/audience-sources.md, "Local copies") at the
 * size they are meant for: an account
 * of 10^7 followers is served from its local copy once the copy passes its
 * samples, and from the source of truth when a crafted divergence breaks the
 * sampling rule. The truth here is sortedFollowerStore (@herald/testing), a
 * FollowerStore over a sorted array: loading 10^7 rows into a real adapter
 * would take minutes, not seconds.
 */
import { join } from 'node:path';
import { ListFlags } from '@herald/core/recipient-list';
import { makeTempDir, sortedFollowerStore, type TempDir } from '@herald/testing';
import { FollowerCopies } from './follower-copy';
import { writeRecipientListFile } from './list-writer';

const FOLLOWERS = 10 ** 7;

describe('FollowerCopies at 10^7 followers', () => {
  let dir: TempDir;
  // Ascending with uneven gaps; every third of them and 10^6 strangers make the query.
  const followers = Uint32Array.from({ length: FOLLOWERS }, (_, i) => i * 409 + (i % 7));
  const query = Uint32Array.from({ length: Math.floor(FOLLOWERS / 3) + 10 ** 6 }, (_, k) =>
    k % 4 === 3 ? followers[k]! + 1 : followers[k]!,
  ).sort();
  // Sample starts at 5%, 15%, ..., 95% of the copy.
  let s = 0;
  const random = () => ((s++ % 10) + 0.5) / 10;

  beforeAll(async () => {
    dir = await makeTempDir('herald-follower-copy-scale-');
    await writeRecipientListFile(join(dir.path, 'big-source.hrl'), followers, ListFlags.SORTED | ListFlags.UNIQUE);
  });
  afterAll(async () => {
    await dir.remove();
  });

  async function installed(): Promise<FollowerCopies> {
    s = 0;
    const copies = new FollowerCopies(join(dir.path, 'copies'), { random });
    await copies.install('big', join(dir.path, 'big-source.hrl'));
    return copies;
  }

  it('is served from the local copy once its samples agree, without asking the truth per uin', async () => {
    const copies = await installed();
    const truth = sortedFollowerStore(followers);
    const kept = await copies.filterFollowers('big', query, truth);
    expect(copies.lastVerdict('big')).toMatchObject({ usable: true, at: 'copy', worst: 0 });
    expect(truth.lookups).toBe(0);
    expect(kept!.length).toBe(query.length - Math.floor(query.length / 4));
    expect(kept!.every((u) => (u - (u % 409)) / 409 < FOLLOWERS && u % 409 < 7)).toBe(true);
    // The source reads the copy too: all 10^7, in order.
    let count = 0;
    let last = -1;
    for await (const { uins } of copies.source('big', truth, { batchSize: 100_000 }).read({ uinLimit: 2 ** 32 })) {
      expect(uins[0]!).toBeGreaterThan(last);
      last = uins[uins.length - 1]!;
      count += uins.length;
    }
    expect(count).toBe(FOLLOWERS);
    expect(copies.lastVerdict('big')).toMatchObject({ at: 'copy' });
  });

  it('falls back to the truth when one sample errs over 10%, though the mean stays under 2%', async () => {
    const copies = await installed();
    // One in seven left, around where the sixth sample starts (55%): that sample errs ~14%, the others 0.
    const from = Math.floor(0.55 * FOLLOWERS) - 100;
    const truth = sortedFollowerStore(followers.filter((_, i) => !(i >= from && i < from + 50_000 && i % 7 === 0)));
    const kept = await copies.filterFollowers('big', query, truth);
    expect(kept).toBeUndefined();
    const verdict = copies.lastVerdict('big')!;
    expect(verdict).toMatchObject({ usable: false, at: 'source' });
    expect(verdict.mean).toBeLessThan(0.02);
    expect(verdict.worst).toBeGreaterThan(0.1);
  });

  it('falls back to the truth when the mean error reaches 2%, though no sample errs over 10%', async () => {
    const copies = await installed();
    // One in twenty left, everywhere: every sample errs ~5%.
    const truth = sortedFollowerStore(followers.filter((_, i) => i % 20 !== 0));
    expect(await copies.filterFollowers('big', query, truth)).toBeUndefined();
    const verdict = copies.lastVerdict('big')!;
    expect(verdict.mean).toBeGreaterThanOrEqual(0.02);
    expect(verdict.worst).toBeLessThanOrEqual(0.1);
  });
});
