import type { FollowChange } from '@herald/core/audience';
import type { FollowerStore } from '@herald/core/ports';
import { rejectsWithCode } from '../assertions';
import { useFreshStore, type StoreFactory } from '../store-factory';
import { audienceSourceConformance, readAll } from './conformance';

const follow = (uin: number, at: number, accountId = 'acme'): FollowChange => ({ accountId, uin, following: true, at });
const unfollow = (uin: number, at: number, accountId = 'acme'): FollowChange => ({
  accountId,
  uin,
  following: false,
  at,
});

/**
 * The FollowerStore contract (core ports/follower-store.ts) as tests, and
 * the AudienceSource suite for its `followers` source. The factory opens a
 * fresh, empty store; closing it twice must be harmless.
 *
 * @example
 *   followerStoreConformance('LevelFollowerStore', async () => {
 *     const dir = await makeTempDir('herald-followers-');
 *     return { store: await LevelFollowerStore.open(dir.path), cleanup: dir.remove };
 *   });
 */
export function followerStoreConformance(name: string, open: StoreFactory<FollowerStore>): void {
  describe(`FollowerStore conformance: ${name}`, () => {
    const store = useFreshStore(open);
    const followers = async (accountId = 'acme') =>
      (await readAll(store().followers(accountId, { batchSize: 3 }))).uins;

    it('follows and unfollows, per account', async () => {
      expect(await store().applyFollows([follow(5, 1), follow(2, 1), follow(9, 1), follow(2, 1, 'other')])).toEqual({
        applied: 4,
        stale: 0,
      });
      await store().applyFollows([unfollow(5, 2)]);
      expect(await followers()).toEqual([2, 9]);
      expect(await followers('other')).toEqual([2]);
      expect(await followers('nobody')).toEqual([]);
    });

    it('applying a batch twice changes nothing the second time (at-least-once redelivery)', async () => {
      const batch = [follow(1, 10), unfollow(1, 20), follow(2, 10), follow(3, 30), unfollow(3, 5)];
      expect(await store().applyFollows(batch)).toEqual({ applied: 3, stale: 2 });
      expect(await followers()).toEqual([2, 3]);
      expect(await store().applyFollows(batch)).toEqual({ applied: 0, stale: 5 });
      expect(await followers()).toEqual([2, 3]);
    });

    it('keeps the latest change per (account, uin) whatever order changes arrive in, across calls', async () => {
      await store().applyFollows([unfollow(7, 300)]);
      await store().applyFollows([follow(7, 200)]); // late and older: the unfollow stands
      await store().applyFollows([follow(8, 100)]);
      await store().applyFollows([follow(8, 400), unfollow(8, 350)]);
      expect(await followers()).toEqual([8]);
      await store().applyFollows([follow(7, 301)]);
      expect(await followers()).toEqual([7, 8]);
    });

    it('in publish order per key, the last change of a pair wins, also inside one call', async () => {
      await store().applyFollows([follow(4, 1), unfollow(4, 2), follow(4, 3), follow(6, 1), unfollow(6, 2)]);
      expect(await followers()).toEqual([4]);
    });

    it('at the same time an unfollow beats a follow, in either order', async () => {
      await store().applyFollows([follow(1, 50), unfollow(1, 50)]);
      await store().applyFollows([unfollow(2, 50)]);
      await store().applyFollows([follow(2, 50)]);
      expect(await followers()).toEqual([]);
    });

    it('refuses a batch with a bad change before writing any of it', async () => {
      await rejectsWithCode(
        store().applyFollows([follow(1, 1), { accountId: 'acme', uin: -1, following: true, at: 1 }]),
        'VALIDATION_FAILED',
      );
      await rejectsWithCode(
        store().applyFollows([{ accountId: 'Not An Id', uin: 1, following: true, at: 1 }]),
        'VALIDATION_FAILED',
      );
      expect(await followers()).toEqual([]);
    });

    it('accepts an empty batch', async () => {
      expect(await store().applyFollows([])).toEqual({ applied: 0, stale: 0 });
    });

    it('holds the whole uin space', async () => {
      await store().applyFollows([follow(2 ** 32 - 1, 1), follow(0, 1)]);
      expect(await followers()).toEqual([0, 2 ** 32 - 1]);
    });

    it("filters a batch down to the account's current followers, ascending", async () => {
      await store().applyFollows([
        follow(3, 1),
        follow(8, 1),
        follow(2 ** 32 - 1, 1),
        follow(9, 1, 'other'),
        follow(5, 1),
        unfollow(5, 2),
      ]);
      const batch = Uint32Array.of(0, 3, 5, 8, 9, 1000, 2 ** 32 - 1);
      expect([...(await store().filterFollowers('acme', batch))]).toEqual([3, 8, 2 ** 32 - 1]);
      expect([...(await store().filterFollowers('other', batch))]).toEqual([9]);
      expect([...(await store().filterFollowers('acme', new Uint32Array(0)))]).toEqual([]);
      const many = Uint32Array.from({ length: 25_000 }, (_, i) => i * 2);
      await store().applyFollows(Array.from({ length: 2500 }, (_, i) => follow(i * 20, 1, 'big')));
      expect((await store().filterFollowers('big', many)).length).toBe(2500);
    });

    it('reads only the followers above afterUin', async () => {
      await store().applyFollows([follow(3, 1), follow(8, 1), follow(9, 1), follow(2 ** 32 - 1, 1)]);
      const after = async (afterUin: number) =>
        (await readAll(store().followers('acme', { batchSize: 2, afterUin }))).uins;
      expect(await after(3)).toEqual([8, 9, 2 ** 32 - 1]);
      expect(await after(0)).toEqual([3, 8, 9, 2 ** 32 - 1]);
      expect(await after(9)).toEqual([2 ** 32 - 1]);
      expect(await after(2 ** 32 - 1)).toEqual([]);
      expect(() => store().followers('acme', { afterUin: -1 })).toThrow(/afterUin/);
    });

    it('refuses a batch that is not strictly ascending, and a bad account id', async () => {
      await rejectsWithCode(store().filterFollowers('acme', Uint32Array.of(3, 3)), 'VALIDATION_FAILED');
      await rejectsWithCode(store().filterFollowers('acme', Uint32Array.of(5, 4)), 'VALIDATION_FAILED');
      await rejectsWithCode(store().filterFollowers('acme', [1, 2] as unknown as Uint32Array), 'VALIDATION_FAILED');
      await rejectsWithCode(store().filterFollowers('Not Valid', Uint32Array.of(1)), 'VALIDATION_FAILED');
    });

    it('refuses a bad account id or batch size when the source is made', () => {
      expect(() => store().followers('Bad Id')).toThrow(/accountId/);
      expect(() => store().followers('acme', { batchSize: 0 })).toThrow(/batchSize/);
    });
  });

  audienceSourceConformance(`followers on ${name}`, async () => {
    const opened = await open();
    let closed = false;
    const closeStore = async () => {
      if (closed) return;
      closed = true;
      await opened.store.close();
    };
    return {
      seed: async (uins, { batchSize }) => {
        // Some noise the source must not see: another account, and an unfollowed user.
        await opened.store.applyFollows([
          ...uins.map((uin) => follow(uin, 10)),
          follow(12_345, 10, 'other'),
          follow(2 ** 31 + 7, 10),
          unfollow(2 ** 31 + 7, 11),
        ]);
        return opened.store.followers('acme', { batchSize });
      },
      breakBackend: closeStore,
      close: async () => {
        await closeStore();
        await opened.cleanup();
      },
    };
  });
}
