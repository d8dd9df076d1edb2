import { dedupeFilter } from './dedupe';
import { blacklistFilter, type BlacklistSource } from './blacklist';
import { noResendFilter, type SentLedger } from './no-resend';
import { followerCheckFilter, type FollowerCheckSource } from './follower-check';
import { targetingConditionFilter, type TargetingConditionSource } from './targeting';
import { frequencyFilter, type FrequencySource } from './frequency';
import { holdoutFilter, type RolloutSource } from './holdout';
import type { RecipientFilter } from './filter';

export interface ChainSources {
  blacklists: BlacklistSource;
  ledger: SentLedger;
  /** The follower check, for the accounts it names followers-only; without it the chain has no follower link. */
  followers?: FollowerCheckSource;
  /** The targeting condition, for tasks that carry a query; without it the chain has no targeting link. */
  targeting?: TargetingConditionSource;
  /** The frequency quota, when `frequency.enabled`; without it the chain has no frequency link. */
  frequency?: FrequencySource;
  /** The tasks' rollouts, for the A/B holdout link; without it the chain has no holdout link. */
  rollouts?: RolloutSource;
}

/**
 * The chain for a task, in its documented order (docs/architecture.md,
 * "The filter chain"):
 *   1. dedupe          duplicate ids in the uploaded list
 *   2. blacklist       global, then the account's own
 *   3. no-resend       users who already got this content from the account
 *   4. follower check  users who do not follow the account: followers-only accounts only
 *   5. targeting       users whose attributes miss the task's query: targeted tasks only
 *   6. holdout         an A/B task's holdout share (docs/rollouts.md): tasks with a holdout only
 *   7. frequency       users with no released slot left today (docs/frequency.md)
 *
 * Links 1-3 only subtract sets held in memory, so the parallel runner runs
 * them in worker threads on ranges of values (filters/parallel.ts); 4-7 run
 * after, on the filtered list (4, 5 and 7 read a store per user, 6 hashes), so
 * each reads only for the users the cheap links kept. Follower check before targeting: an
 * account-wide fact, answered by one sequential scan of a local copy when
 * the account has one, before a query's index reads. Frequency comes last:
 * it reads a store every dispatcher and executor shares, and a user removed
 * for a reason that never changes (blacklisted, already sent, not a
 * follower, not targeted) is not counted as over frequency. A user who
 * fails several links is counted once, under the first.
 *
 * Which links run is decided per task: 4 by the account's attributes
 * (`followers.followersOnly`), 5 by the task's mode (`targeting.queryOf`);
 * a link that does not run is absent from the report's counts.
 */
export function buildFilterChain(sources: ChainSources): RecipientFilter[] {
  const chain = [dedupeFilter, blacklistFilter(sources.blacklists), noResendFilter(sources.ledger)];
  if (sources.followers !== undefined) chain.push(followerCheckFilter(sources.followers));
  if (sources.targeting !== undefined) chain.push(targetingConditionFilter(sources.targeting));
  // Before frequency: a held-out user is not sent this task, so it must not spend a slot of their day.
  if (sources.rollouts !== undefined) chain.push(holdoutFilter(sources.rollouts));
  if (sources.frequency !== undefined) chain.push(frequencyFilter(sources.frequency));
  return chain;
}
