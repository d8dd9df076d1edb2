import { loadRecipientList, type FollowerCopies, type ListRepository } from '@herald/audience';
import { radixSortUint32, uniqueSorted } from '@herald/core/uins';
import type { AttributeIndex, Clock, FollowerStore, FrequencyCounter, TaskStore } from '@herald/core/ports';
import { filteredListRuns } from '@herald/core/task';
import type { HeraldConfig } from '@herald/core/config';
import type { BlacklistSource } from './filters/blacklist';
import type { ChainSources } from './filters/chain';
import { followerMembership, type FollowerCheckSource } from './filters/follower-check';
import type { SentLedger } from './filters/no-resend';
import type { TargetingConditionSource } from './filters/targeting';
import type { LocalTimeSource } from './local-groups';

export const GLOBAL_BLACKLIST_ID = 'b_global';

/** The list id under which an account's own blacklist is stored. Account ids are [a-z0-9_]. */
export function accountBlacklistId(accountId: string): string {
  return `b_acct_${accountId}`;
}

/** Blacklists kept as recipient-list files in the list repository (uploaded through the API). */
export function repositoryBlacklists(lists: ListRepository, uinLimit: number): BlacklistSource {
  const load = async (id: string) =>
    (await lists.exists(id))
      ? uniqueSorted(radixSortUint32(await loadRecipientList(lists.pathOf(id), { uinLimit })))
      : undefined;
  return {
    global: () => load(GLOBAL_BLACKLIST_ID),
    forAccount: (accountId) => load(accountBlacklistId(accountId)),
  };
}

/**
 * The no-resend ledger read from the task store: other tasks' filtered lists,
 * as far back as the task being filtered looks (Task.noResendSince, set by a
 * campaign's no-resend scope: only tasks scheduled after it count). A task
 * the store does not hold (a dry run's) looks back without bound.
 */
export function storeLedger(store: TaskStore, lists: ListRepository, uinLimit: number): SentLedger {
  return {
    async *audiencesOf(accountId, contentCrc, exceptTaskId) {
      const since = (await store.getTask(exceptTaskId))?.noResendSince ?? null;
      for (const task of await store.listTasksByContent(accountId, contentCrc)) {
        if (task.id === exceptTaskId || task.filteredListId === null) continue;
        if (since !== null && task.sendAt <= since) continue;
        if (!(await lists.exists(task.filteredListId))) continue;
        const sent = await loadRecipientList(lists.pathOf(task.filteredListId), { uinLimit });
        // A canary's list is its sample then the rest (docs/rollouts.md), a local-time task's its groups one after
        // another (docs/local-time.md): sorted runs, while the filter takes one sorted set.
        yield filteredListRuns(task) === undefined ? sent : radixSortUint32(sent);
      }
    },
  };
}

/**
 * The follower check as configured: the accounts `accounts.followersOnly`
 * names send to their followers only; membership comes from the follower
 * store, or from an account's local copy when `copies` holds one.
 */
export function configuredFollowerCheck(
  followersOnly: readonly string[],
  store: FollowerStore,
  copies?: FollowerCopies,
): FollowerCheckSource {
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

/**
 * Local-time delivery's source read from the task store and the attribute
 * index (docs/local-time.md): a task created with `deliverAt` or
 * `quietHours` is grouped by its recipients' `tz` bitsets; any other is sent
 * at its one instant.
 */
export function storeLocalTime(store: TaskStore, index: AttributeIndex, clock: Clock): LocalTimeSource {
  return {
    index,
    clock,
    async taskOf(taskId) {
      const task = await store.getTask(taskId);
      if (task === undefined || (task.deliverAt === undefined && task.quietHours === undefined)) return undefined;
      return {
        expiresAt: task.expiresAt,
        ...(task.deliverAt === undefined ? {} : { deliverAt: task.deliverAt }),
        ...(task.quietHours === undefined ? {} : { quietHours: task.quietHours }),
      };
    },
  };
}

/** What a process has at hand to filter with: the stores the chain's links read. */
export interface FilterSourceDeps {
  config: HeraldConfig;
  store: TaskStore;
  lists: ListRepository;
  followers: FollowerStore;
  attributes: AttributeIndex;
  followerCopies?: FollowerCopies;
  /** The shared per-user daily counts; only read with `frequency.enabled`. */
  frequencyCounter?: FrequencyCounter;
  /** The time `active-since` and frequency are judged at. Default: the system clock. */
  clock?: Clock;
}

/**
 * The filter chain's sources as configured, in one place for every process
 * that filters: the dispatchers' pre-processing and the interfaces' dry runs
 * (POST /api/v1/tasks?dryRun=true) read the same blacklists, ledger,
 * followers, attributes and frequency counts, so a dry run removes what the
 * real run would.
 */
export function filterChainSources(deps: FilterSourceDeps): ChainSources {
  const { config, store, lists, clock } = deps;
  const counter = config.frequency.enabled ? deps.frequencyCounter : undefined;
  return {
    blacklists: repositoryBlacklists(lists, config.uinLimit),
    ledger: storeLedger(store, lists, config.uinLimit),
    // Followers-only accounts (accounts.followersOnly) and targeted tasks (Task.targeting) get links 4 and 5.
    followers: configuredFollowerCheck(config.accounts.followersOnly, deps.followers, deps.followerCopies),
    targeting: storeTargeting(store, deps.attributes, clock),
    rollouts: { rolloutOf: async ({ taskId }) => (await store.getTask(taskId))?.rollout },
    ...(counter === undefined
      ? {}
      : {
          // The attribute index gives each user's `tz`: their own local day (docs/frequency.md, "Time zones").
          frequency: {
            policy: config.frequency.policy,
            counter,
            index: deps.attributes,
            ...(clock === undefined ? {} : { clock }),
          },
        }),
  };
}
