import { join } from 'node:path';
import { applyFollowEvents, FollowerCopies } from '@herald/audience';
import { withRetries, type HeraldConfig, type Logger, type Meter, type Subscription } from '@herald/core';
import type { AudienceSourceDeps } from '@herald/interface';
import { MySqlAttributeIndex, MySqlFollowerStore, MySqlTableSources } from '@herald/store-mysql';
import { connectEventBus, outageRetries } from './adapters';
import type { Resources } from './tiers/resources';

/**
 * The production audience sources (docs/audience-sources.md), in the task
 * store's database (migrations/007_audiences.sql): the followers table, the
 * attribute index, and table sources for admins. The stores ride out MySQL
 * outages like the task store (a follower or attribute write is idempotent
 * or transactional, so a retry is safe); a source's read that fails half way
 * fails its job instead, and nothing is stored.
 *
 * With `audiences.followEvents`, this process also joins the consumer group
 * herald-followers on `herald.follows` and applies each follow/unfollow to
 * the followers table; and, in a group of its own (every process hears every
 * change), appends them to its local follower copies
 * (`<dataDir>/follower-copies`, with `audiences.followerCopyThreshold`).
 * Without the events a copy drifts from the table until its sampling
 * refuses it and the next read from the table replaces it.
 */
export async function openAudienceSources(config: HeraldConfig, id: string, logger: Logger, meter: Meter, resources: Resources): Promise<AudienceSourceDeps> {
  const { mysql } = config.production!;
  const options = { url: mysql.url, database: mysql.database, poolSize: mysql.poolSize };
  const retries = outageRetries(logger, 'MySQL');
  // `followers` answers a source at once (not a promise): it passes through the retry proxy as it is.
  const followers = resources.add('follower store', withRetries(await MySqlFollowerStore.open(options), retries, ['close', 'followers']), (s) => s.close());
  const attributes = resources.add('attribute index', withRetries(await MySqlAttributeIndex.open(options), retries), (s) => s.close());
  const tables = resources.add('table sources', await MySqlTableSources.open(options), (s) => s.close());
  const followerCopies = config.audiences.followerCopyThreshold > 0 ? new FollowerCopies(join(config.dataDir, 'follower-copies'), { logger }) : undefined;
  if (config.audiences.followEvents) {
    const bus = resources.add('event bus', await connectEventBus(config, id, logger), (b) => b.close());
    resources.add('follow events', await applyFollowEvents({ bus, store: followers, logger, meter }), (s: Subscription) => s.close());
    if (followerCopies !== undefined) {
      resources.add('follow events (copies)', await applyFollowEvents({ bus, store: followerCopies, group: `herald-follower-copies-${id}`, logger }), (s: Subscription) => s.close());
    }
  }
  return { followers, attributes, tables, ...(followerCopies === undefined ? {} : { followerCopies }) };
}
