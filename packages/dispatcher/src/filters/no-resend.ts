import { subtractSorted } from '@herald/core';
import type { FilterContext, RecipientFilter } from './filter';

/**
 * The audiences that already received a content: for each earlier task of the
 * account with the same content CRC, its filtered list (sorted, distinct).
 * Backed by the task store, so it is as durable as the tasks themselves and
 * survives retries, recovery and separate tasks.
 */
export interface SentLedger {
  audiencesOf(accountId: string, contentCrc: number, exceptTaskId: number): AsyncIterable<Uint32Array>;
}

/** CRC / no-resend: a user never gets the same content twice. */
export function noResendFilter(ledger: SentLedger): RecipientFilter {
  return {
    name: 'no-resend',
    reason: 'already_sent',
    async apply(uins: Uint32Array, context: FilterContext) {
      let kept = uins;
      for await (const sent of ledger.audiencesOf(context.accountId, context.contentCrc, context.taskId)) {
        kept = subtractSorted(kept, sent);
        if (kept.length === 0) break;
      }
      return kept;
    },
  };
}
