import { join } from 'node:path';
import { applyFollowEvents, FollowerCopies, resyncFollowerCopies } from '@herald/audience';
import type { AttributeIndex, EventBus, FollowerStore, Logger, Meter, Subscription } from '@herald/core/ports';
import type { HeraldConfig } from '@herald/core/config';
import type { AudienceSourceDeps } from '@herald/interface';
import { MySqlAttributeIndex, MySqlFollowerStore, MySqlTableSources } from '@herald/store-mysql';
import { connectEventBus, mysqlRetrying } from './adapters';
import { mysqlOptions } from './connection-security';
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
 * refuses it and the next read from the table replaces it. When the topic's
 * retention deleted follow events before the copies' group read them, every
 * copy is rebuilt from the table before the group goes on
 * (resyncFollowerCopies); the table's own group can only count and log such
 * a loss (docs/operations.md, "Kafka topics").
 */
export async function openAudienceSources(
  config: HeraldConfig,
  id: string,
  logger: Logger,
  meter: Meter,
  resources: Resources,
): Promise<AudienceSourceDeps & FilterSources> {
  const { mysql } = config.production!;
  const { followers, attributes, followerCopies } = await openMemberSources(config, logger, resources);
  const tables = resources.add('table sources', await MySqlTableSources.open(mysqlOptions(mysql)), (s) => s.close());
  if (config.audiences.followEvents) {
    const bus = resources.add('event bus', await connectEventBus(config, id, logger, meter), (b) => b.close());
    resources.add(
      'follow events',
      await applyFollowEvents({ bus, store: followers, logger, meter }),
      (s: Subscription) => s.close(),
    );
    if (followerCopies !== undefined)
      await followCopies(bus, { copies: followerCopies, truth: followers }, id, logger, meter, resources);
  }
  return { followers, attributes, tables, ...(followerCopies === undefined ? {} : { followerCopies }) };
}

/** What the dispatcher's follower check and targeting condition read (docs/architecture.md, "The filter chain"). */
export interface FilterSources {
  followers: FollowerStore;
  attributes: AttributeIndex;
  followerCopies?: FollowerCopies;
}

/**
 * The dispatcher's audience reads: the followers table and its local copies
 * (the follower check of followers-only accounts), the attribute index (the
 * targeting condition of targeted tasks). It applies no follow events to the
 * table (the interface processes do); with `audiences.followEvents` its
 * copies hear them in a group of their own, as the interface's do.
 */
export async function openFilterSources(
  config: HeraldConfig,
  id: string,
  logger: Logger,
  meter: Meter,
  resources: Resources,
): Promise<FilterSources> {
  const sources = await openMemberSources(config, logger, resources);
  if (config.audiences.followEvents && sources.followerCopies !== undefined) {
    const bus = resources.add('event bus', await connectEventBus(config, id, logger, meter), (b) => b.close());
    await followCopies(bus, { copies: sources.followerCopies, truth: sources.followers }, id, logger, meter, resources);
  }
  return sources;
}

/** The followers table, the attribute index, and this process's follower copies (with audiences.followerCopyThreshold). */
async function openMemberSources(config: HeraldConfig, logger: Logger, resources: Resources): Promise<FilterSources> {
  // Each store retries the calls it marks safe to repeat; a source's page reads run once (a read that fails fails its job).
  const options = mysqlRetrying(config, logger);
  const followers = resources.add('follower store', await MySqlFollowerStore.open(options), (s) => s.close());
  const attributes = resources.add('attribute index', await MySqlAttributeIndex.open(options), (s) => s.close());
  const followerCopies =
    config.audiences.followerCopyThreshold > 0
      ? new FollowerCopies(join(config.dataDir, 'follower-copies'), { logger })
      : undefined;
  return { followers, attributes, ...(followerCopies === undefined ? {} : { followerCopies }) };
}

/**
 * Appends every follow/unfollow on `herald.follows` to this process's copies:
 * a consumer group per process, so each hears every change. A skipped range
 * rebuilds every copy from the followers table first.
 */
async function followCopies(
  bus: EventBus,
  { copies, truth }: { copies: FollowerCopies; truth: FollowerStore },
  id: string,
  logger: Logger,
  meter: Meter,
  resources: Resources,
): Promise<void> {
  const group = `herald-follower-copies-${id}`;
  const resync = async () => {
    await resyncFollowerCopies(copies, truth, logger);
  };
  resources.add(
    'follow events (copies)',
    await applyFollowEvents({ bus, store: copies, group, logger, meter, resync }),
    (s: Subscription) => s.close(),
  );
}
