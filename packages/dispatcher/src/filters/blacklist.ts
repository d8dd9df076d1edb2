import type { FilterContext, RecipientFilter } from './filter';
import { subtractingFilter } from './subtracting';

/** Where blacklists come from: sorted, distinct uins, or undefined when there is none. */
export interface BlacklistSource {
  global(): Promise<Uint32Array | undefined>;
  forAccount(accountId: string): Promise<Uint32Array | undefined>;
}

/** Removes uins on the global blacklist and on the account's own. */
export function blacklistFilter(source: BlacklistSource): RecipientFilter {
  return subtractingFilter('blacklist', 'blacklisted', async function* (context: FilterContext) {
    const global = await source.global();
    if (global) yield global;
    const own = await source.forAccount(context.accountId);
    if (own) yield own;
  });
}
