import type { FollowChange } from '../audience/follows';
import type { AudienceSource } from './audience-source';

/**
 * The followers of each account: the source of truth for the `followers`
 * audience (docs/audience-sources.md, "Followers"). Production: the MySQL
 * table `followers` (store-mysql migration 006); embedded: LevelDB.
 *
 * Contract, checked by the FollowerStore conformance suite for every adapter:
 * - `applyFollows` applies follow/unfollow changes (checked with
 *   checkFollowChange: one bad change rejects the call with a ValidationError
 *   before anything is written). Per (account, uin) the winner is decided by
 *   core's `followChangeWins` (latest `at`; at a tie, unfollow), against what
 *   is stored as well as within the call, so applying a batch twice, or its
 *   changes in any order, gives the same followers. The call is atomic.
 * - `followers(accountId)` is an AudienceSource (its conformance suite
 *   applies): the account's current followers, strictly ascending, in
 *   batches of at most `batchSize`.
 * - An unfollowed pair is kept as a tombstone holding its `at`, so a late
 *   follow older than the unfollow cannot bring the user back.
 */
export interface FollowerStore {
  applyFollows(changes: readonly FollowChange[]): Promise<FollowApplyResult>;
  followers(accountId: string, options?: { batchSize?: number }): AudienceSource;
  close(): Promise<void>;
}

export interface FollowApplyResult {
  /** Changes written: each the winner of its pair within the call and over what was stored. */
  applied: number;
  /** Changes outranked by another change in the call or by what was stored (a redelivery's are all here). */
  stale: number;
}
