import { join } from 'node:path';
import { MAX_SOURCE_BATCH, type FollowerStore } from '@herald/core/ports';
import type { FollowChange } from '@herald/core/audience';
import { FollowerCopies, ListRepository, importFromSource } from '@herald/audience';
import { LevelFollowerStore } from '@herald/store-level';
import { makeTempDir, spreadUins, type TempDir } from '@herald/testing';
import { followerCheckFilter, followerMembership } from './follower-check';

const context = { taskId: 1, accountId: 'acme', contentCrc: 0 };

describe('followerCheckFilter', () => {
  const source = {
    followersOnly: async (account: string) => account === 'acme',
    filterFollowers: async (_: string, uins: Uint32Array) => uins.filter((u) => u % 3 === 0),
  };

  it('is the not_follower link', () => {
    expect(followerCheckFilter(source)).toMatchObject({ name: 'follower-check', reason: 'not_follower' });
  });

  it('runs for followers-only accounts only, by the account attribute', async () => {
    const filter = followerCheckFilter(source);
    expect(await filter.runsFor!(context)).toBe(true);
    expect(await filter.runsFor!({ ...context, accountId: 'other' })).toBe(false);
  });

  it('keeps exactly the followers', async () => {
    expect([...(await followerCheckFilter(source).apply(Uint32Array.of(1, 3, 4, 6, 9, 10), context))]).toEqual([
      3, 6, 9,
    ]);
  });
});

describe('followerMembership', () => {
  let dir: TempDir;
  let truth: LevelFollowerStore;
  let lists: ListRepository;
  const followers = spreadUins(3, 5000);
  const follow = (accountId: string, uin: number, following = true, at = 1): FollowChange => ({
    accountId,
    uin,
    following,
    at,
  });

  beforeEach(async () => {
    dir = await makeTempDir('herald-follower-check-');
    truth = await LevelFollowerStore.open(join(dir.path, 'followers'));
    lists = new ListRepository(join(dir.path, 'lists'));
    await truth.applyFollows([...followers].map((uin) => follow('acme', uin)));
  });
  afterEach(async () => {
    await truth.close();
    await dir.remove();
  });

  /** Every other follower, and as many uins that follow nobody. */
  const crafted = () =>
    Uint32Array.from(new Set([...followers.filter((_, i) => i % 2 === 0), ...spreadUins(77, 2500)])).sort();
  const expected = (uins: Uint32Array) => [...uins].filter((u) => followers.includes(u));

  it('asks the source of truth in batches of MAX_SOURCE_BATCH when the account has no copy', async () => {
    const sizes: number[] = [];
    const spy: FollowerStore = {
      ...truth,
      applyFollows: truth.applyFollows.bind(truth),
      followers: truth.followers.bind(truth),
      close: truth.close.bind(truth),
      filterFollowers: (account, uins) => (sizes.push(uins.length), truth.filterFollowers(account, uins)),
    };
    const uins = crafted();
    expect([...(await followerMembership(spy)('acme', uins.slice()))]).toEqual(expected(uins));
    const big = Uint32Array.from({ length: MAX_SOURCE_BATCH + 10 }, (_, i) => i);
    await followerMembership(spy)('acme', big);
    expect(sizes.slice(1)).toEqual([MAX_SOURCE_BATCH, 10]);
  });

  it("answers from the account's validated local copy, with its changes merged", async () => {
    const copies = new FollowerCopies(join(dir.path, 'copies'));
    const { meta } = await importFromSource(lists, truth.followers('acme'), { accountId: 'acme', uinLimit: 2 ** 32 });
    await copies.install('acme', lists.pathOf(meta.id));
    // Since the copy: one follower left, one newcomer came (each in the truth and in the change file).
    const changes = [follow('acme', followers[0]!, false, 5), follow('acme', 1, true, 5)];
    await truth.applyFollows(changes);
    await copies.applyFollows(changes);
    const uins = Uint32Array.from([1, ...crafted()]).sort();
    const now = [1, ...expected(uins).filter((u) => u !== followers[0])].sort((a, b) => a - b);
    expect([...(await followerMembership(truth, copies)('acme', uins.slice()))]).toEqual(now);
    expect(copies.lastVerdict('acme')).toMatchObject({ at: 'copy', usable: true });
    expect([...(await truth.filterFollowers('acme', uins))]).toEqual(now);
  });

  it('falls back to the source of truth when the copy fails its samples', async () => {
    const copies = new FollowerCopies(join(dir.path, 'copies'));
    const { meta } = await importFromSource(lists, truth.followers('acme'), { accountId: 'acme', uinLimit: 2 ** 32 });
    await copies.install('acme', lists.pathOf(meta.id));
    // A third of the followers left, and the copy never heard of it.
    await truth.applyFollows([...followers].filter((_, i) => i % 3 === 0).map((uin) => follow('acme', uin, false, 9)));
    const uins = crafted();
    const now = [...uins].filter((u) => followers.indexOf(u) >= 0 && followers.indexOf(u) % 3 !== 0);
    expect([...(await followerMembership(truth, copies)('acme', uins.slice()))]).toEqual(now);
    expect(copies.lastVerdict('acme')).toMatchObject({ at: 'source', usable: false });
  });
});
