import { loadRecipientList, type FollowerCopies, type ListRepository } from '@herald/audience';
import { radixSortUint32, uniqueSorted, type AttributeIndex, type Clock, type FollowerStore, type TaskStore } from '@herald/core';
import type { BlacklistSource } from './filters/blacklist';
import { followerMembership, type FollowerCheckSource } from './filters/follower-check';
import type { SentLedger } from './filters/no-resend';
import type { TargetingConditionSource } from './filters/targeting';

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


/**
 * The follower check as configured: the accounts `accounts.followersOnly`
 * names send to their followers only; membership comes from the follower
 * store, or from an account's local copy when `copies` holds one.
 */
export function configuredFollowerCheck(followersOnly: readonly string[], store: FollowerStore, copies?: FollowerCopies): FollowerCheckSource {
  const accounts = new Set(followersOnly);
  return {
    followersOnly: async (accountId) => accounts.has(accountId),
    filterFollowers: followerMembership(store, copies),
  };
}

/**
 * The targeting condition read from the task store: a task is targeted when
 * it was created with a `targeting` query (validated then), matched against
 * the attribute index.
 */
export function storeTargeting(store: TaskStore, index: AttributeIndex, clock?: Clock): TargetingConditionSource {
  return {
    index,
    async queryOf({ taskId }) {
      const task = await store.getTask(taskId);
      return task?.targeting ?? undefined;
    },
    ...(clock === undefined ? {} : { clock }),
  };
}
