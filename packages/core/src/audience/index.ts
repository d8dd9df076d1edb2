/**
 * @module @herald/core/audience
 *
 * Audience rules shared by the sources' adapters (docs/audience-sources.md): follow and
 * unfollow changes and which of two wins, sampling that validates a big account's local
 * follower copy, and the table source's checked description. The `AudienceSource` and
 * `FollowerStore` ports themselves are in `@herald/core/ports`.
 *
 * @example
 *   import { checkFollowChange, reduceFollowChanges } from '@herald/core/audience';
 *   const { winners } = reduceFollowChanges(events.map(checkFollowChange));
 */
export {
  checkAfterUin,
  checkFollowChange,
  checkFollowersAccount,
  followChangeWins,
  followEventKey,
  followPairKey,
  reduceFollowChanges,
} from './follows';
export type { FollowChange } from './follows';
export { FOLLOWER_SAMPLING, followerSampleSize, sampleErrorRate, judgeFollowerSamples } from './follower-sampling';
export type { SamplingVerdict } from './follower-sampling';
export {
  TABLE_CONDITION_OPS,
  MAX_TABLE_CONDITIONS,
  MAX_IN_VALUES,
  checkIdentifier,
  checkTableSourceSpec,
} from './table-source-spec';
export type { TableSourceSpec, TableCondition, TableConditionOp, TableValue } from './table-source-spec';
