import { subtractSorted } from '@herald/core';
import type { FilterContext, RecipientFilter } from './filter';

/** Where blacklists come from: sorted, distinct uins, or undefined when there is none. */
export interface BlacklistSource {
  global(): Promise<Uint32Array | undefined>;
  forAccount(accountId: string): Promise<Uint32Array | undefined>;
}

/** Removes uins on the global blacklist and on the account's own. */
export function blacklistFilter(source: BlacklistSource): RecipientFilter {
  return {
    name: 'blacklist',
    reason: 'blacklisted',
    async apply(uins: Uint32Array, context: FilterContext) {
      let kept = uins;
      const global = await source.global();
      if (global) kept = subtractSorted(kept, global);
      const own = await source.forAccount(context.accountId);
      if (own) kept = subtractSorted(kept, own);
      return kept;
    },
  };
}
