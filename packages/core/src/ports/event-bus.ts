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

export interface SubscribeOptions {
  fromBeginning?: boolean;
  /** Wait before redelivering a batch whose handler threw. Default 100 ms. */
  retryDelayMs?: number;
}

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
