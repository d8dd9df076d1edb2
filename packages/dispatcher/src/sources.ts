import { loadRecipientList, type ListRepository } from '@herald/audience';
import { radixSortUint32, uniqueSorted, type TaskStore } from '@herald/core';
import type { BlacklistSource } from './filters/blacklist';
import type { SentLedger } from './filters/no-resend';

export const GLOBAL_BLACKLIST_ID = 'b_global';

/** The list id under which an account's own blacklist is stored. Account ids are [a-z0-9_]. */
export function accountBlacklistId(accountId: string): string {
  return `b_acct_${accountId}`;
}

/** Blacklists kept as recipient-list files in the list repository (uploaded through the API). */
export function repositoryBlacklists(lists: ListRepository, uinLimit: number): BlacklistSource {
  const load = async (id: string) => ((await lists.exists(id)) ? uniqueSorted(radixSortUint32(await loadRecipientList(lists.pathOf(id), { uinLimit }))) : undefined);
  return {
    global: () => load(GLOBAL_BLACKLIST_ID),
    forAccount: (accountId) => load(accountBlacklistId(accountId)),
  };
}

/** The no-resend ledger read from the task store: earlier tasks' filtered lists. */
export function storeLedger(store: TaskStore, lists: ListRepository, uinLimit: number): SentLedger {
  return {
    async *audiencesOf(accountId, contentCrc, exceptTaskId) {
      for (const task of await store.listTasksByContent(accountId, contentCrc)) {
        if (task.id === exceptTaskId || task.filteredListId === null) continue;
        if (!(await lists.exists(task.filteredListId))) continue;
        yield await loadRecipientList(lists.pathOf(task.filteredListId), { uinLimit });
      }
    },
  };
}

