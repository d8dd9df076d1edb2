import { dedupeFilter } from './dedupe';
import { blacklistFilter, type BlacklistSource } from './blacklist';
import { noResendFilter, type SentLedger } from './no-resend';
import { frequencyFilter, type FrequencySource } from './frequency';
import type { RecipientFilter } from './filter';

export interface ChainSources {
  blacklists: BlacklistSource;
  ledger: SentLedger;
  /** The frequency quota, when `frequency.enabled`; without it the chain has no frequency link. */
  frequency?: FrequencySource;
}

/**
 * The chain for a task, in its documented order (docs/architecture.md):
 *   1. dedupe        duplicate ids in the uploaded list
 *   2. blacklist     global, then the account's own
 *   3. no-resend     users who already got this content from the account
 *   4. frequency     users with no released slot left today (docs/frequency.md)
 * Frequency comes last: it is the only link that reads a shared store per
 * user, so it reads only for users nothing else removed, and a user removed
 * for a reason that never changes (blacklisted, already sent) is not counted
 * as over frequency. Later filters (follower check, targeting) slot in by the
 * account's attributes and the task's mode.
 */
export function buildFilterChain(sources: ChainSources): RecipientFilter[] {
  const chain = [dedupeFilter, blacklistFilter(sources.blacklists), noResendFilter(sources.ledger)];
  if (sources.frequency !== undefined) chain.push(frequencyFilter(sources.frequency));
  return chain;
}
