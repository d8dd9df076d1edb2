/**
 * Follow and unfollow changes: what the `herald.follows` topic carries and
 * what a FollowerStore applies (docs/audience-sources.md, "Followers").
 *
 * Order rule (last writer wins, with a fixed tie-break): of all the changes
 * ever applied for one (account, uin), the one with the greatest `at` decides
 * whether the user follows; at equal `at`, an unfollow beats a follow. The
 * rule is a maximum, so applying changes is idempotent and commutative:
 * a redelivered batch (the event bus is at least once), a replay, or two
 * consumers racing on one pair all end in the same state as applying each
 * change once in publish order.
 */
import { ACCOUNT_ID_PATTERN } from '../access/principal';
import { ValidationError } from '../errors';

export interface FollowChange {
  accountId: string;
  uin: number;
  /** true: the user follows the account from `at` on; false: unfollowed. */
  following: boolean;
  /** When it happened, epoch ms (the event time, not the publish time). */
  at: number;
}

/** Largest uin a follower table holds: the uin space is at most 2^32. */
const MAX_UIN = 2 ** 32 - 1;

/** Whether change `a` outranks `b` for the same (account, uin): later, or at the same time an unfollow over a follow. */
export function followChangeWins(
  a: Pick<FollowChange, 'following' | 'at'>,
  b: Pick<FollowChange, 'following' | 'at'>,
): boolean {
  if (a.at !== b.at) return a.at > b.at;
  return !a.following && b.following;
}

/** Checks one change; a ValidationError names the field. */
export function checkFollowChange(change: unknown): FollowChange {
  if (change === null || typeof change !== 'object' || Array.isArray(change))
    throw new ValidationError('a follow change must be an object { accountId, uin, following, at }');
  const { accountId, uin, following, at } = change as Record<string, unknown>;
  if (typeof accountId !== 'string' || !ACCOUNT_ID_PATTERN.test(accountId)) {
    throw new ValidationError('follow change accountId must be 1..64 of a-z, 0-9 and _', { field: 'accountId' });
  }
  if (!Number.isInteger(uin) || (uin as number) < 0 || (uin as number) > MAX_UIN)
    throw new ValidationError('follow change uin must be an integer in [0, 2^32)', { field: 'uin' });
  if (typeof following !== 'boolean')
    throw new ValidationError('follow change following must be true or false', { field: 'following' });
  if (!Number.isSafeInteger(at) || (at as number) < 0)
    throw new ValidationError('follow change at must be a non-negative integer of epoch ms', { field: 'at' });
  return { accountId, uin: uin as number, following, at: at as number };
}

/** The event-bus key of a change: the uin, so one user's changes stay in publish order. */
export function followEventKey(change: Pick<FollowChange, 'uin'>): string {
  return String(change.uin);
}

/** The key of a (account, uin) pair in maps: the account, a space (never in an account id), the uin. */
export function followPairKey(change: Pick<FollowChange, 'accountId' | 'uin'>): string {
  return `${change.accountId} ${change.uin}`;
}

/**
 * The winning change of each (account, uin) pair in `changes`, by
 * followChangeWins, in first-seen pair order; `stale` counts the rest.
 * Adapters then keep only the winners that also beat the stored state.
 */
export function reduceFollowChanges(changes: readonly FollowChange[]): { winners: FollowChange[]; stale: number } {
  const best = new Map<string, FollowChange>();
  for (const change of changes) {
    const key = followPairKey(change);
    const held = best.get(key);
    if (held === undefined || followChangeWins(change, held)) best.set(key, change);
  }
  return { winners: [...best.values()], stale: changes.length - best.size };
}

/** Checks a followers source's `afterUin`: undefined, or an integer in [0, 2^32). */
export function checkAfterUin(afterUin: unknown): number | undefined {
  if (afterUin === undefined) return undefined;
  if (!Number.isInteger(afterUin) || (afterUin as number) < 0 || (afterUin as number) > MAX_UIN)
    throw new ValidationError('afterUin must be an integer in [0, 2^32)', { field: 'afterUin' });
  return afterUin as number;
}

/** Checks the `followers` source's arguments: an account id as the API takes them. */
export function checkFollowersAccount(accountId: unknown): string {
  if (typeof accountId !== 'string' || !ACCOUNT_ID_PATTERN.test(accountId))
    throw new ValidationError('accountId must be 1..64 of a-z, 0-9 and _', { field: 'accountId' });
  return accountId;
}
