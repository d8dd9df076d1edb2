import { setTimeout as sleep } from 'node:timers/promises';
import { ErrorCodes, HeraldError } from '@herald/core';
import type { ConsumedEvent, Counter, SkippedRange, Subscription } from '@herald/core/ports';
import type { Admin, Batch, Consumer, EachBatchPayload, Kafka } from 'kafkajs';
import { toHeraldError } from './errors';
import { fromMessage } from './messages';
import type { CompiledKafkaOptions } from './options';
import { SkipDetector } from './skip-detector';

export interface SubscriptionSpec {
  /** The topic as the caller names it (ConsumedEvent.topic). */
  topic: string;
  /** The group as the caller names it (SkippedRange.group). */
  group: string;
  /** The topic and group as Kafka knows them (with the prefix). */
  kafkaTopic: string;
  groupId: string;
  fromBeginning: boolean;
  retryDelayMs: number;
  handler: (events: ConsumedEvent[]) => Promise<void>;
  /** SubscribeOptions.onSkip: told of each hole before the batch after it. */
  onSkip?: (skip: SkippedRange) => Promise<void>;
  /** The topic's cleanup policy: compaction leaves gaps that are not holes. */
  cleanup: 'compact' | 'delete';
}

/** What a subscription shares with its bus: the admin client (committed and log start offsets) and the skip counter. */
export interface SubscriptionShared {
  admin: Admin;
  /** herald_event_consumer_skips_total{topic,group}: holes */
  skips: Counter;
  /** herald_event_consumer_skipped_total{topic,group}: events known to be in them */
  skipped: Counter;
}

/**
 * One subscription: one kafkajs consumer in its group. Each fetched batch
 * (one partition's messages) goes to the handler; its offset is resolved only
 * after the handler resolved, and kafkajs commits it right after the batch
 * (autoCommit, no interval or threshold), so at least once. A handler that
 * throws gets the same batch again after `retryDelayMs`, heartbeating
 * meanwhile; if the group rebalances in between, the batch is left
 * unresolved and whoever owns the partition next fetches it again from the
 * committed offset.
 *
 * A consumer that kafkajs gives up on (a crash it does not restart) is
 * replaced by a new one, until the subscription is closed.
 *
 * Holes: before a batch is handled, SkipDetector checks it starts where the
 * group was to read next. A hole (events deleted by retention before the
 * group read them) is logged as an error, counted in
 * herald_event_consumer_skipped_total and passed to `onSkip` once, before the
 * batch's handler; a failing `onSkip` is retried with the batch.
 */
/** Joins a new subscription tries when its group refuses the join's sync (refusedSync). */
const JOIN_ATTEMPTS = 3;

/**
 * The group answered a join's SyncGroup with INVALID_REQUEST. The librdkafka
 * mock broker did so once in a loaded CI run, as an interface process's
 * follower-copy consumer joined its group; a group in flux on a Kafka broker
 * answers REBALANCE_IN_PROGRESS instead, which kafkajs retries by joining
 * again. A new consumer joining again is the same remedy; anything else still
 * fails the subscription at once.
 */
function refusedSync(error: unknown): boolean {
  return error instanceof HeraldError && error.details?.type === 'INVALID_REQUEST';
}

export class KafkaSubscription implements Subscription {
  private consumer: Consumer;
  private readonly stop = new AbortController();
  private closing?: Promise<void>;
  private reviving?: Promise<void>;
  private readonly detector: SkipDetector;
  /** Holes already reported ("partition/from"): a batch fetched again after a rebalance is not counted twice. */
  private readonly reported = new Set<string>();

  private constructor(
    private readonly kafka: Kafka,
    private readonly shared: SubscriptionShared,
    private readonly options: CompiledKafkaOptions,
    private readonly spec: SubscriptionSpec,
    private readonly onClosed: () => void,
  ) {
    this.detector = new SkipDetector(shared.admin, spec.kafkaTopic, spec.groupId, spec.cleanup === 'compact');
    this.consumer = this.newConsumer();
  }

  /** Resolves once the consumer has joined its group (the librdkafka mock takes 3 s for a new group). */
  static async start(
    kafka: Kafka,
    shared: SubscriptionShared,
    options: CompiledKafkaOptions,
    spec: SubscriptionSpec,
    onClosed: () => void,
  ): Promise<KafkaSubscription> {
    for (let attempt = 1; ; attempt++) {
      const subscription = new KafkaSubscription(kafka, shared, options, spec, onClosed);
      try {
        await subscription.begin();
        return subscription;
      } catch (error) {
        if (attempt >= JOIN_ATTEMPTS || !refusedSync(error)) throw error;
        options.logger.warn('kafka: the group refused a join; joining again', {
          group: spec.groupId,
          attempt,
          error: String(error),
        });
      }
    }
  }

  close(): Promise<void> {
    return (this.closing ??= (async () => {
      this.stop.abort();
      await this.reviving;
      try {
        await this.retire(this.consumer);
      } finally {
        this.onClosed();
      }
    })());
  }

  /**
   * Disconnects a consumer for good. kafkajs's `disconnect` does not stop a
   * restart already under way (after a crash its runner is not yet "running",
   * so stopping it is a no-op, and the restart goes on to join the group), so
   * any sign of life afterwards (a join, a crash, a fetch) disconnects it
   * again, on the next turn, once kafkajs has armed its restart timer (which
   * `disconnect` then clears).
   */
  private async retire(consumer: Consumer): Promise<void> {
    const again = () =>
      setImmediate(() => {
        consumer.disconnect().catch(() => undefined);
      });
    for (const event of [consumer.events.GROUP_JOIN, consumer.events.CRASH, consumer.events.FETCH_START])
      consumer.on(event, again);
    try {
      await consumer.disconnect();
    } catch (error) {
      this.options.logger.warn('kafka: disconnecting a consumer failed', { ...this.label(), error: String(error) });
    }
  }

  private label() {
    return { topic: this.spec.kafkaTopic, groupId: this.spec.groupId };
  }

  private newConsumer(): Consumer {
    const o = this.options;
    return this.kafka.consumer({
      groupId: this.spec.groupId,
      sessionTimeout: o.sessionTimeoutMs,
      rebalanceTimeout: o.rebalanceTimeoutMs,
      heartbeatInterval: o.heartbeatIntervalMs,
      maxWaitTimeInMs: o.maxWaitTimeMs,
      allowAutoTopicCreation: true,
      retry: o.retry,
    });
  }

  /** Connects, subscribes, runs, and waits for the group join; on failure disconnects and throws a HeraldError. */
  private async begin(): Promise<void> {
    const consumer = this.consumer;
    const { events } = consumer;
    const cleanups: Array<() => void> = [];
    // Every (re)join may bring partitions other members read meanwhile: positions come from the commits again.
    consumer.on(events.GROUP_JOIN, () => this.detector.rejoined());
    const joined = new Promise<void>((resolve, reject) => {
      cleanups.push(consumer.on(events.GROUP_JOIN, () => resolve()));
      cleanups.push(
        consumer.on(events.CRASH, ({ payload }) => {
          if (!payload.restart) reject(payload.error);
        }),
      );
      const timer = setTimeout(
        () =>
          reject(
            new HeraldError(
              ErrorCodes.UNAVAILABLE,
              `kafka: consumer of group ${this.spec.groupId} did not join within ${this.options.joinTimeoutMs} ms`,
              { retriable: true },
            ),
          ),
        this.options.joinTimeoutMs,
      );
      cleanups.push(() => clearTimeout(timer));
    });
    joined.catch(() => undefined);
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [this.spec.kafkaTopic], fromBeginning: this.spec.fromBeginning });
      await this.detector.load(); // the group's offsets before kafkajs may reset any
      await consumer.run({
        autoCommit: true,
        eachBatchAutoResolve: false,
        eachBatch: (payload) => this.eachBatch(payload),
      });
      await joined;
    } catch (error) {
      await this.retire(consumer);
      throw toHeraldError(error, `subscribe to ${this.spec.kafkaTopic} as group ${this.spec.groupId}`);
    } finally {
      for (const cleanup of cleanups) cleanup();
    }
    consumer.on(events.CRASH, ({ payload }) => {
      if (!payload.restart) this.revive(payload.error);
    });
  }

  private revive(error: Error): void {
    if (this.stop.signal.aborted || this.reviving !== undefined) return;
    this.options.logger.error('kafka: consumer stopped; starting a new one', { ...this.label(), error: String(error) });
    this.reviving = (async () => {
      while (!this.stop.signal.aborted) {
        await sleep(this.options.retry.initialRetryTime, undefined, { signal: this.stop.signal }).catch(
          () => undefined,
        );
        if (this.stop.signal.aborted) return;
        await this.retire(this.consumer);
        this.consumer = this.newConsumer();
        try {
          await this.begin();
          return;
        } catch (failure) {
          this.options.logger.warn('kafka: restarting a consumer failed; trying again', {
            ...this.label(),
            error: String(failure),
          });
        }
      }
    })().finally(() => (this.reviving = undefined));
  }

  // kafkajs hands these as closures over the batch, not methods: taking them out is safe.
  // eslint-disable-next-line @typescript-eslint/unbound-method
  private async eachBatch({ batch, resolveOffset, heartbeat, isRunning, isStale }: EachBatchPayload): Promise<void> {
    const events: ConsumedEvent[] = [];
    for (const message of batch.messages) {
      try {
        events.push(fromMessage(this.spec.topic, batch.partition, message));
      } catch (error) {
        this.options.logger.warn('kafka: skipping a message whose value is not JSON', {
          ...this.label(),
          partition: batch.partition,
          offset: message.offset,
          error: String(error),
        });
      }
    }
    const live = () => isRunning() && !isStale() && !this.stop.signal.aborted;
    let checked = batch.messages.length === 0;
    let hole: SkippedRange | undefined;
    while (!checked || hole !== undefined || events.length > 0) {
      if (!live()) return; // left unresolved: fetched again by whoever consumes next
      try {
        if (!checked) {
          hole = await this.holeBefore(batch);
          checked = true;
        }
        if (hole !== undefined) {
          await this.spec.onSkip?.(hole);
          hole = undefined;
        }
        if (events.length > 0) await this.spec.handler(events.slice());
        break;
      } catch (error) {
        this.options.logger.warn('event handler failed; the batch will be delivered again', {
          ...this.label(),
          partition: batch.partition,
          from: batch.firstOffset(),
          count: events.length,
          retryDelayMs: this.spec.retryDelayMs,
          error: String(error),
        });
        await sleep(this.spec.retryDelayMs, undefined, { signal: this.stop.signal }).catch(() => undefined);
        if (live()) await heartbeat(); // a rebalance throws here: kafkajs rejoins, the batch stays unresolved
      }
    }
    resolveOffset(batch.lastOffset());
    if (batch.messages.length > 0) this.detector.consumed(batch.partition, batch.lastOffset());
  }

  /** The hole before `batch`, counted and logged the first time it is seen; undefined when there is none. */
  private async holeBefore(batch: Batch): Promise<SkippedRange | undefined> {
    const hole = await this.detector.check(batch.partition, batch.firstOffset()!);
    if (hole === undefined) return undefined;
    const skip: SkippedRange = {
      topic: this.spec.topic,
      group: this.spec.group,
      partition: hole.partition,
      to: String(hole.to),
      ...(hole.from === undefined ? {} : { from: String(hole.from), count: Number(hole.to - hole.from) }),
    };
    const id = `${skip.partition}/${skip.from ?? 'reset'}/${skip.to}`;
    if (!this.reported.has(id)) {
      this.reported.add(id);
      const labels = { topic: this.spec.kafkaTopic, group: this.spec.groupId };
      this.shared.skips.inc(labels);
      if (skip.count !== undefined) this.shared.skipped.inc(labels, skip.count);
      this.options.logger.error(
        'kafka: events deleted before this group read them (the topic retention overran it); skipped',
        { ...this.label(), partition: skip.partition, from: skip.from ?? 'unknown', to: skip.to, count: skip.count },
      );
    }
    return skip;
  }
}
