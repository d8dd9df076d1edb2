/**
 * @module @herald/dispatcher
 *
 * The dispatcher tier: pre-processing (sort, filter chain, filtered list,
 * unit plan) and dispatch (streaming each unit's recipients to its executor).
 *
 * @example
 *   const dispatcher = startDispatcher({ config, inbox, toScheduler, toExecutor, lists,
 *     filters: buildFilterChain({ blacklists, ledger }) });
 *
 *   // The follower check for the accounts `accounts.followersOnly` names (from a local copy when there is one),
 *   // the targeting condition for tasks created with a `targeting` query:
 *   buildFilterChain({ blacklists, ledger,
 *     followers: configuredFollowerCheck(config.accounts.followersOnly, followerStore, copies),
 *     targeting: storeTargeting(taskStore, attributeIndex) });
 */
export { startDispatcher } from './dispatcher';
export type { Dispatcher, DispatcherDeps } from './dispatcher';
export { preprocess, filteredListIdOf, PARALLEL_FROM } from './preprocess';
export { groupByLocalTime } from './local-groups';
export type { LocalTimeSource, LocalTimeTask, LocalGrouping } from './local-groups';
export { planUnits } from './plan-units';
export type { UnitPlanContext } from './plan-units';
export { HostLoads } from './host-loads';
export { runFilterChain } from './filters/filter';
export type { RecipientFilter, FilterContext, ChainResult } from './filters/filter';
export { dedupeFilter } from './filters/dedupe';
export { blacklistFilter } from './filters/blacklist';
export type { BlacklistSource } from './filters/blacklist';
export { noResendFilter } from './filters/no-resend';
export type { SentLedger } from './filters/no-resend';
export { frequencyFilter, FREQUENCY_READ_CHUNK } from './filters/frequency';
export type { FrequencySource } from './filters/frequency';
export { followerCheckFilter, followerMembership } from './filters/follower-check';
export type { FollowerCheckSource } from './filters/follower-check';
export { targetingConditionFilter } from './filters/targeting';
export type { TargetingConditionSource } from './filters/targeting';
export { runFilterChainParallel } from './filters/parallel';
export type { ParallelChainOptions } from './filters/parallel';
export { buildFilterChain } from './filters/chain';
export type { ChainSources } from './filters/chain';
export {
  repositoryBlacklists,
  storeLedger,
  configuredFollowerCheck,
  storeTargeting,
  storeLocalTime,
  filterChainSources,
  GLOBAL_BLACKLIST_ID,
  accountBlacklistId,
} from './sources';
export type { FilterSourceDeps } from './sources';
export { createRecipientPreview, PREVIEW_EXACT_MAX } from './preview';
export type { PreviewDeps, PreviewRequest, RecipientPreview } from './preview';
export { readListRange } from './read-range';
