import type { FilterContext, RecipientFilter } from './filter';
import { subtractingFilter } from './subtracting';

/**
 * The audiences that already received a content: for each earlier task of the
 * account with the same content CRC, its filtered list (sorted, distinct).
 * Backed by the task store, so it is as durable as the tasks themselves and
 * survives retries, recovery and separate tasks. How far back it looks is the
 * task's own (Task.noResendSince: a campaign's no-resend scope, docs/campaigns.md).
 */
export interface SentLedger {
  audiencesOf(accountId: string, contentCrc: number, exceptTaskId: number): AsyncIterable<Uint32Array>;
}

/** CRC / no-resend: a user never gets the same content twice (within the task's no-resend scope). */
export function noResendFilter(ledger: SentLedger): RecipientFilter {
  return subtractingFilter('no-resend', 'already_sent', (context: FilterContext) =>
    ledger.audiencesOf(context.accountId, context.contentCrc, context.taskId),
  );
}
