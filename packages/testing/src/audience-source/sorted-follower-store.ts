import { indexOfSorted } from '@herald/core/uins';
import type { AudienceSource, FollowerStore, FollowersOptions } from '@herald/core/ports';

/**
 * A FollowerStore over one account's followers held as a sorted array: the
 * source of truth for tests and benchmarks at 10^7-10^8 followers, where
 * loading the real adapters (LevelDB, MySQL, which pass
 * followerStoreConformance) would take minutes. Read-only: applyFollows
 * applies nothing. `lookups` counts the uins filterFollowers was asked about.
 */
export function sortedFollowerStore(followers: Uint32Array): FollowerStore & { lookups: number } {
  const store = {
    lookups: 0,
    applyFollows: async () => ({ applied: 0, stale: 0 }),
    close: async () => {},
    followers: (_accountId: string, options: FollowersOptions = {}): AudienceSource => ({
      kind: 'followers',
      description: { sorted: true },
      async *read() {
        const size = options.batchSize ?? 10_000;
        let at = options.afterUin === undefined ? 0 : firstAbove(followers, options.afterUin);
        for (; at < followers.length; at += size) yield { uins: followers.slice(at, at + size) };
      },
    }),
    filterFollowers: async (_accountId: string, uins: Uint32Array) => {
      store.lookups += uins.length;
      return uins.filter((u) => indexOfSorted(followers, u) >= 0);
    },
  };
  return store;
}

function firstAbove(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
