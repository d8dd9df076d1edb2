import type { FollowChange } from '../audience/follows';
import type { AudienceSource } from './audience-source';

/**
 * The followers of each account: the source of truth for the `followers`
 * audience (docs/audience-sources.md, "Followers"). Production: the MySQL
 * table `followers` (store-mysql migration 007); embedded: LevelDB.
 *
 * Contract, checked by the FollowerStore conformance suite for every adapter:
 * - `applyFollows` applies follow/unfollow changes (checked with
 *   checkFollowChange: one bad change rejects the call with a ValidationError
 *   before anything is written). Per (account, uin) the winner is decided by
 *   core's `followChangeWins` (latest `at`; at a tie, unfollow), against what
 *   is stored as well as within the call, so applying a batch twice, or its
 *   changes in any order, gives the same followers. A call that fails may
 *   have applied part of its changes (MySQL writes slices of 1000 pairs):
 *   applying it again is safe, which is what a redelivery does.
 * - `followers(accountId)` is an AudienceSource (its conformance suite
 *   applies): the account's current followers, strictly ascending, in
 *   batches of at most `batchSize`; with `afterUin`, only those above it
 *   (a sample's start: docs/audience-sources.md, "Local copies").
 * - An unfollowed pair is kept as a tombstone holding its `at`, so a late
 *   follow older than the unfollow cannot bring the user back.
 * - `filterFollowers(accountId, uins)` answers the uins of a strictly
 *   ascending batch that follow the account now, ascending: the membership
 *   check a filter chain's follower check (or a local copy's sampled
 *   validation) needs, one call a batch. A batch that is not strictly
 *   ascending, or over 2^20 uins, is a ValidationError.
 */
export interface FollowerStore {
  applyFollows(changes: readonly FollowChange[]): Promise<FollowApplyResult>;
  followers(accountId: string, options?: FollowersOptions): AudienceSource;
  filterFollowers(accountId: string, uins: Uint32Array): Promise<Uint32Array>;
  close(): Promise<void>;
}

export interface FollowersOptions {
  /** Uins per batch (a keyset page). @defaultValue 10000 */
  batchSize?: number;
  /** Only followers with a larger uin. */
  afterUin?: number;
}

export interface FollowApplyResult {
  /** Changes written: each the winner of its pair within the call and over what was stored. */
  applied: number;
  /** Changes outranked by another change in the call or by what was stored (a redelivery's are all here). */
  stale: number;
}
