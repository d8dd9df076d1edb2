import type { RetryOptions } from '../retry/retry';
import type {
  BusEvent,
  CheckedSubscribeOptions,
  ConsumedEvent,
  EventBus,
  SubscribeOptions,
  Subscription,
} from '../ports/event-bus';
import { checkEvents, checkSubscription, checkTopic, type CheckedEvent } from '../ports/event-bus-rules';
import { AdapterLifecycle, type ErrorTranslator } from './lifecycle';

export interface EventBusBaseOptions {
  /** How errors name the adapter, e.g. 'KafkaEventBus'. */
  name: string;
  /** What "closed" errors call it, e.g. 'bus'. */
  noun: string;
  translate: ErrorTranslator;
  retry?: RetryOptions;
}

/** A handler as the port takes it. */
export type EventHandler = (events: ConsumedEvent[]) => Promise<void>;

/**
 * The EventBus contract every adapter shares: `publish` and `subscribe`
 * refuse calls after close (STORE_CLOSED) and check their arguments with the
 * core rules once (a publish is all or nothing; an empty one stores
 * nothing), then call the adapter's `_publish` / `_subscribe`. A
 * subscription that comes up while the bus is closing is closed again and
 * the call fails STORE_CLOSED. `close` waits for calls in flight, then the
 * adapter's `_close` ends its subscriptions and connections.
 *
 * Neither call is retried here: a publish whose reply was lost may be sent
 * again by the adapter's own client (consumers are at least once), and a
 * subscription is long-lived.
 */
export abstract class AbstractEventBus implements EventBus {
  protected readonly life: AdapterLifecycle;

  protected constructor(options: EventBusBaseOptions) {
    this.life = new AdapterLifecycle(options);
  }

  publish(topic: string, events: readonly BusEvent[]): Promise<void> {
    return this.life.run('publish', async () => {
      checkTopic(topic);
      const checked = checkEvents(events);
      if (checked.length > 0) await this._publish(topic, checked);
    });
  }

  subscribe(
    topic: string,
    group: string,
    handler: EventHandler,
    options: SubscribeOptions = {},
  ): Promise<Subscription> {
    return this.life.run('subscribe', async () => {
      const checked = checkSubscription(topic, group, handler, options);
      const subscription = await this._subscribe(topic, group, handler, checked);
      if (this.life.closed) {
        await subscription.close();
        throw this.life.closedError('subscribe');
      }
      return subscription;
    });
  }

  /** Waits for calls in flight, then the adapter closes every subscription and its connections. Later calls fail with STORE_CLOSED. */
  close(): Promise<void> {
    return this.life.close(() => this._close());
  }

  /** Appends checked, non-empty `events` to `topic`, in order. */
  protected abstract _publish(topic: string, events: readonly CheckedEvent[]): Promise<void>;
  /** Starts delivering `topic` to `handler` in consumer group `group`; resolves once it is live. */
  protected abstract _subscribe(
    topic: string,
    group: string,
    handler: EventHandler,
    options: CheckedSubscribeOptions,
  ): Promise<Subscription>;
  /** Closes every subscription (waiting for batches in flight) and the backend. Called once. */
  protected abstract _close(): Promise<void>;
}
