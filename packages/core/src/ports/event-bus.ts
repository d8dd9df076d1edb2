/**
 * The event bus: presence (login/logout), reports (every delivered batch) and
 * task events (state changes relayed from the task store's outbox).
 * Production: Kafka (kafkajs); embedded: an event log in LevelDB.
 *
 * Contract, checked by the EventBus conformance suite for every adapter:
 * - `publish` resolves once every event is durably accepted; events with the
 *   same key are delivered to a subscriber in publish order.
 * - A subscription belongs to a consumer group: each group receives every
 *   event of the topic; the members of one group share them.
 * - At least once: an event counts as consumed only when the handler for its
 *   batch resolved; a handler that throws gets the batch again (after
 *   `retryDelayMs`), and a group that re-subscribes resumes after the last
 *   consumed event, never before it is handled.
 * - `fromBeginning` applies only to a group with no consumed position yet.
 * - Never silently past a hole: when a group's next event was deleted before
 *   the group read it (the topic's retention overran a consumer that fell
 *   behind), the adapter calls `onSkip` with the range before it delivers
 *   the first batch after the hole, and counts and logs it.
 */
export interface BusEvent {
  /** Ordering key: events with the same key stay in order (e.g. the task id or the uin). */
  key: string;
  /** JSON-serialisable payload. */
  value: unknown;
  /** Epoch ms the event happened (event time). */
  timestamp: number;
}

export interface ConsumedEvent extends BusEvent {
  topic: string;
  /** Where the event sits in its topic; opaque except for ordering within a key. */
  position: string;
}

/**
 * Events a consumer group will never see: a stretch of one partition deleted
 * (time or size retention) before the group read it. Kafka moves such a group
 * to the oldest (or newest) retained offset; the events in between are gone.
 */
export interface SkippedRange {
  topic: string;
  group: string;
  partition: number;
  /**
   * The offset the group was to read next (its committed offset, or one past
   * its last consumed event); undefined when the adapter learnt of the hole
   * only from the reset it caused (kafkajs commits "earliest" in its place).
   */
  from?: string;
  /** The offset of the first event delivered after the hole. */
  to: string;
  /** `to - from` when `from` is known: events never delivered (on a compacted topic an upper bound: compaction leaves holes too). */
  count?: number;
}

export interface SubscribeOptions {
  fromBeginning?: boolean;
  /** Wait before redelivering a batch whose handler threw. Default 100 ms. */
  retryDelayMs?: number;
  /**
   * Called once per hole, before the first batch after it reaches the
   * handler (so a repair starts before newer events are applied). If it
   * throws, the batch is delivered again after `retryDelayMs`, and `onSkip`
   * with it. The Kafka adapter also counts every hole
   * (`herald_event_consumer_skips_total{topic,group}`) and the events it
   * knows were in it (`herald_event_consumer_skipped_total{topic,group}`),
   * and logs the range as an error, with or without `onSkip`. The embedded event log never
   * calls it: it deletes no event a group has not consumed.
   * @defaultValue none (counted and logged only)
   */
  onSkip?: (skip: SkippedRange) => Promise<void>;
}

/** SubscribeOptions with their defaults filled (`onSkip` stays optional). */
export type CheckedSubscribeOptions = Required<Omit<SubscribeOptions, 'onSkip'>> & Pick<SubscribeOptions, 'onSkip'>;

export interface Subscription {
  close(): Promise<void>;
}

export interface EventBus {
  publish(topic: string, events: readonly BusEvent[]): Promise<void>;
  subscribe(
    topic: string,
    group: string,
    handler: (events: ConsumedEvent[]) => Promise<void>,
    options?: SubscribeOptions,
  ): Promise<Subscription>;
  close(): Promise<void>;
}

/** Topic names; production configuration may prefix them. */
export const TOPICS = {
  presence: 'herald.presence',
  reports: 'herald.reports',
  taskEvents: 'herald.task-events',
  follows: 'herald.follows',
} as const;

/**
 * How long a topic keeps its events, where the adapter creates the topic.
 * - `compact`: presence. Its events are keyed by uin, and a presence agent
 *   that rebuilds its bitmap replays the topic from the beginning: only log
 *   compaction (the newest event of every key kept, however old) makes that
 *   replay see every user's last login. Under time or size retention, users
 *   whose last event expired replay as offline: nothing is lost (their
 *   broadcasts queue offline until their next login) but they are not pushed.
 * - `delete`: reports and task events, read once by their consumers; and
 *   follows (follow/unfollow changes, keyed by uin): the followers table is
 *   their source of truth, and compacting by uin would keep one account's
 *   change per user and drop the user's changes for every other account.
 */
export const TOPIC_CLEANUP: Readonly<Record<string, 'compact' | 'delete'>> = {
  [TOPICS.presence]: 'compact',
  [TOPICS.reports]: 'delete',
  [TOPICS.taskEvents]: 'delete',
  [TOPICS.follows]: 'delete',
};

/** The cleanup policy of a topic, by its unprefixed name; `delete` for topics Herald does not name. */
export function topicCleanup(topic: string): 'compact' | 'delete' {
  return TOPIC_CLEANUP[topic] ?? 'delete';
}
