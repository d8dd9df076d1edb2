import { dedupeFilter } from './dedupe';
import { blacklistFilter, type BlacklistSource } from './blacklist';
import { noResendFilter, type SentLedger } from './no-resend';
import type { RecipientFilter } from './filter';

export interface ChainSources {
  blacklists: BlacklistSource;
  ledger: SentLedger;
}

/**
 * The chain for a task, in its documented order (docs/architecture.md):
 *   1. dedupe        duplicate ids in the uploaded list
 *   2. blacklist     global, then the account's own
 *   3. no-resend     users who already got this content from the account
 * Later filters (follower check, frequency quota, targeting) slot in by the
 * account's attributes and the task's mode.
 */
export function buildFilterChain(sources: ChainSources): RecipientFilter[] {
  return [dedupeFilter, blacklistFilter(sources.blacklists), noResendFilter(sources.ledger)];
}
