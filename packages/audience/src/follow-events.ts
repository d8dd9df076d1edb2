/**
 * Follow and unfollow events on the event bus (`herald.follows`, keyed by
 * uin) applied to a FollowerStore, the followers' source of truth
 * (docs/audience-sources.md, "Followers"). The bus delivers at least once
 * and in order per key; the store's apply is idempotent and order-free per
 * (account, uin) (core followChangeWins), so a redelivered batch changes
 * nothing and a crash between apply and commit loses nothing.
 */
import { checkFollowChange, followEventKey, type FollowChange } from '@herald/core/audience';
import { isHeraldError } from '@herald/core';
import {
  noopLogger,
  noopMeter,
  TOPICS,
  type EventBus,
  type FollowerStore,
  type Logger,
  type Meter,
  type SkippedRange,
  type Subscription,
} from '@herald/core/ports';

export interface FollowEventsOptions {
  bus: EventBus;
  /** Where the changes go: the followers store, or anything that takes them the same way (the local follower copies). */
  store: Pick<FollowerStore, 'applyFollows'>;
  /** Consumer group: every process of one group shares the topic. @defaultValue 'herald-followers' */
  group?: string;
  logger?: Logger;
  meter?: Meter;
  /** Redelivery wait after a failed apply. @defaultValue 1000 */
  retryDelayMs?: number;
  /**
   * Repairs what a skipped range lost (events deleted by the topic's
   * retention before this group read them; the bus has counted and logged
   * it): for local follower copies, rebuild them from the source of truth
   * (resyncFollowerCopies). Awaited before the events after the hole are
   * applied; a failure is retried with them. Without it the skip is logged
   * here as unrepaired: for the followers table, the topic was the only
   * carrier of those changes, and only their producer can publish them again.
   */
  resync?: (skip: SkippedRange) => Promise<void>;
}

/**
 * Subscribes to `herald.follows` and applies each batch to the store. An
 * event whose value is not a follow change is logged, counted
 * (herald_follow_events_invalid_total) and skipped: one bad producer must
 * not stop the topic. A failed apply (the store is down) throws, so the
 * batch comes again after `retryDelayMs`.
 */
export async function applyFollowEvents(options: FollowEventsOptions): Promise<Subscription> {
  const logger = options.logger ?? noopLogger;
  const meter = options.meter ?? noopMeter;
  const invalid = meter.counter(
    'herald_follow_events_invalid_total',
    'Follow events skipped because their value is not a follow change',
  );
  const applied = meter.counter('herald_follow_events_applied_total', 'Follow changes written to the followers store');
  const stale = meter.counter(
    'herald_follow_events_stale_total',
    'Follow changes outranked by a later change (redeliveries included)',
  );
  const resyncs = meter.counter(
    'herald_follow_resyncs_total',
    'Repairs after follow events were skipped (deleted before they were read): local copies rebuilt from the source of truth',
  );
  return options.bus.subscribe(
    TOPICS.follows,
    options.group ?? 'herald-followers',
    async (events) => {
      const changes: FollowChange[] = [];
      for (const event of events) {
        try {
          changes.push(checkFollowChange(event.value));
        } catch (error) {
          invalid.inc();
          logger.warn('follow event skipped: not a follow change', {
            position: event.position,
            key: event.key,
            error: isHeraldError(error) ? error.message : String(error),
          });
        }
      }
      if (changes.length === 0) return;
      const result = await options.store.applyFollows(changes);
      applied.inc(undefined, result.applied);
      stale.inc(undefined, result.stale);
    },
    {
      fromBeginning: true,
      retryDelayMs: options.retryDelayMs ?? 1000,
      onSkip: async (skip) => {
        if (options.resync === undefined) {
          logger.error('follow changes lost: the store misses them until their producer publishes them again', {
            ...skip,
          });
          return;
        }
        await options.resync(skip);
        resyncs.inc();
      },
    },
  );
}

/** Publishes follow changes as `herald.follows` events (key: the uin; timestamp: the change's time). For producers and tests. */
export async function publishFollowChanges(bus: EventBus, changes: readonly FollowChange[]): Promise<void> {
  const checked = changes.map((change) => checkFollowChange(change));
  await bus.publish(
    TOPICS.follows,
    checked.map((change) => ({ key: followEventKey(change), value: change, timestamp: change.at })),
  );
}
