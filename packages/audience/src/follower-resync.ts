/**
 * Rebuilding local follower copies from the source of truth, for when their
 * change feed lost events: the follows consumer of the copies learnt that
 * `herald.follows` events were deleted before it read them (a skipped range,
 * EventBus `onSkip`). Those events are gone, and with them which accounts
 * they touched, so every copy is rebuilt: each account's followers are read
 * from the followers store into a new base and installed with no changes.
 */
import { join } from 'node:path';
import { noopLogger, type FollowerStore, type Logger } from '@herald/core/ports';
import { ListFlags } from '@herald/core/recipient-list';
import type { FollowerCopies } from './follower-copy';
import { removeQuietly } from './fs-util';
import { RecipientListWriter } from './list-writer';

/** Followers read from the source of truth a page. */
const PAGE = 65_536;

/** Rebuilds one account's copy from `truth`; resolves with its follower count. */
export async function resyncFollowerCopy(
  copies: FollowerCopies,
  accountId: string,
  truth: FollowerStore,
): Promise<number> {
  // Not `.hrl`: the copies' directory names each copy's base <account>.hrl.
  const path = join(copies.dir, `${accountId}.resync`);
  const writer = await RecipientListWriter.create(path);
  let count: number;
  try {
    for await (const batch of truth.followers(accountId, { batchSize: PAGE }).read({ uinLimit: 2 ** 32 }))
      await writer.write(batch.uins);
    ({ count } = await writer.close(ListFlags.SORTED | ListFlags.UNIQUE));
  } catch (error) {
    await writer.abort();
    throw error;
  }
  try {
    await copies.install(accountId, path);
  } finally {
    await removeQuietly(path);
  }
  return count;
}

/** Rebuilds every copy from `truth`, one account after another; resolves with the accounts rebuilt. */
export async function resyncFollowerCopies(
  copies: FollowerCopies,
  truth: FollowerStore,
  logger: Logger = noopLogger,
): Promise<string[]> {
  const accounts = await copies.copiedAccounts();
  for (const accountId of accounts) {
    const followers = await resyncFollowerCopy(copies, accountId, truth);
    logger.info('follower copy resynced from the source of truth', { account: accountId, followers });
  }
  return accounts;
}
