import { join } from 'node:path';
import { mkdir } from 'node:fs/promises';
import { PRIVATE_DIR_MODE } from '@herald/core';
import type { HeraldConfig } from '@herald/core/config';
import type { Logger } from '@herald/core/ports';
import { FollowerCopies } from '@herald/audience';
import type { Resources } from '@herald/compose';
import {
  LevelAccessStore,
  LevelAccountStore,
  LevelAttributeIndex,
  LevelCampaignStore,
  LevelDeliveryRecordLog,
  LevelFollowerStore,
  LevelFrequencyCounter,
  LevelOfflineStore,
  LevelTaskStore,
} from '@herald/store-level';

/**
 * The embedded profile's LevelDB stores, one instance each under the data
 * directory, shared by every tier of the process (lent to them) and closed
 * by `scope` when the cluster stops.
 */
export async function openSharedStores(config: HeraldConfig, logger: Logger, scope: Resources) {
  const dir = (name: string) => join(config.dataDir, name);
  await mkdir(config.dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const closing = <T extends { close(): Promise<void> }>(name: string, store: T) =>
    scope.add(name, store, (s) => s.close());
  const store = closing('task store', await LevelTaskStore.open(dir('tasks')));
  const access = closing('access store', await LevelAccessStore.open(dir('access')));
  const offline = closing(
    'offline store',
    await LevelOfflineStore.open(dir('offline'), { rangeBits: config.offline.rangeBits }),
  );
  const campaigns = closing('campaign store', await LevelCampaignStore.open(dir('campaigns')));
  const followers = closing('follower store', await LevelFollowerStore.open(dir('followers')));
  const attributes = closing('attribute index', await LevelAttributeIndex.open(dir('attributes')));
  const accounts = closing('account store', await LevelAccountStore.open(dir('accounts')));
  // One set of local follower copies, kept by the audience routes and read by the dispatcher's follower check.
  const followerCopies =
    config.audiences.followerCopyThreshold > 0 ? new FollowerCopies(dir('follower-copies'), { logger }) : undefined;
  // One counter, shared in-process by the dispatcher's filter, every executor and login delivery.
  const counter = config.frequency.enabled
    ? closing('frequency counter', await LevelFrequencyCounter.open(dir('frequency')))
    : null;
  // Per-recipient truth (docs/recipient-truth.md): written by every executor and login walk, read by the API.
  const deliveryRecords = closing('delivery records', await LevelDeliveryRecordLog.open(dir('delivery-records')));
  return {
    store,
    access,
    offline,
    campaigns,
    followers,
    attributes,
    accounts,
    followerCopies,
    counter,
    deliveryRecords,
  };
}

export type SharedStores = Awaited<ReturnType<typeof openSharedStores>>;
