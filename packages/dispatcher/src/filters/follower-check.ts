import { MAX_SOURCE_BATCH, type FollowerStore } from '@herald/core/ports';
import type { FollowerCopies } from '@herald/audience';
import type { FilterContext, RecipientFilter } from './filter';
import { keepInSlices } from './slices';

/**
 * What the follower check needs: which accounts send to their followers only
 * (an attribute of the account), and who among a sorted list follows one.
 */
export interface FollowerCheckSource {
  /** The account attribute: true when the account's broadcasts reach its followers only. */
  followersOnly(accountId: string): Promise<boolean>;
  /** The uins of `sortedUnique` (any length) that follow the account now, ascending. */
  filterFollowers(accountId: string, sortedUnique: Uint32Array): Promise<Uint32Array>;
}

/** Removes the recipients who do not follow the account (reason `not_follower`), for followers-only accounts. */
export function followerCheckFilter(source: FollowerCheckSource): RecipientFilter {
  return {
    name: 'follower-check',
    reason: 'not_follower',
    runsFor: (context: FilterContext) => source.followersOnly(context.accountId),
    apply: (uins: Uint32Array, context: FilterContext) => source.filterFollowers(context.accountId, uins),
  };
}

/**
 * Membership from the source of truth, or from the account's local copy when
 * it has one (docs/audience-sources.md, "Local copies"): the copy is
 * validated by sampling before each use and gives way to `store` when it
 * fails. The store answers in batches of MAX_SOURCE_BATCH.
 */
export function followerMembership(
  store: FollowerStore,
  copies?: FollowerCopies,
): FollowerCheckSource['filterFollowers'] {
  return async (accountId, uins) => {
    const fromCopy =
      copies !== undefined && (await copies.has(accountId))
        ? await copies.filterFollowers(accountId, uins, store)
        : undefined;
    if (fromCopy !== undefined) return fromCopy;
    return keepInSlices(uins, MAX_SOURCE_BATCH, (part) => store.filterFollowers(accountId, part));
  };
}
