import { isHeraldError } from '@herald/core';
import type { NewCampaign } from '@herald/core/campaign';

/** A fixed clock reading: stores keep `now` exactly as given, never read a clock. */
export const CAMPAIGN_NOW = 1_700_000_000_000;

export function newCampaign(overrides: Partial<NewCampaign> = {}): NewCampaign {
  return {
    accountId: 'acct-1',
    name: 'Morning news',
    cron: '0 9 * * mon-fri',
    timeZone: 'Europe/Berlin',
    template: {
      listId: 'list-1',
      content: { body: 'Good morning', title: 'News' },
      priority: 'normal',
      ttlSeconds: 3600,
    },
    ...overrides,
  };
}

/** The code and field of what `promise` rejected with; fails the test if it resolved. */
export async function failure(promise: Promise<unknown>): Promise<{ code: string | undefined; field: unknown }> {
  try {
    await promise;
  } catch (error) {
    return {
      code: isHeraldError(error) ? error.code : undefined,
      field: isHeraldError(error) ? error.details.field : undefined,
    };
  }
  throw new Error('expected a rejection, but the call succeeded');
}
