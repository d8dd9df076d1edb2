import { AbstractEventBus, type EventHandler } from '@herald/core/adapter';
import { ConfigError } from '@herald/core';
import {
  topicCleanup,
  type CheckedEvent,
  type CheckedSubscribeOptions,
  type Counter,
  type Subscription,
} from '@herald/core/ports';
import { Kafka, Partitioners, type Admin, type Producer } from 'kafkajs';
import { kafkaClientConfig } from './client-config';
import { toHeraldError } from './errors';
import { KafkaSubscription } from './kafka-subscription';
import { toMessage } from './messages';
import { compileOptions, type CompiledKafkaOptions, type KafkaEventBusOptions } from './options';
import { Topics } from './topics';

/**
 * The production EventBus, on Kafka (kafkajs).
 *
 * publish: one producer per bus, idempotence off (librdkafka's mock cluster
 * names no controller, so kafkajs cannot get a producer id there), acks from
 * all in-sync replicas; each event a message keyed by its key (the default
 * murmur2 partitioner: same key, same partition, so order holds), its value
 * as JSON text and its event time as CreateTime. A retried produce may
 * duplicate a batch, never reorder it: consumers are at least once anyway.
 *
 * subscribe: one consumer per subscription in group `topicPrefix + group`
 * (see KafkaSubscription for commits, redelivery and holes: events deleted
 * before the group read them are counted in
 * herald_event_consumer_skips_total and _skipped_total{topic,group}, logged
 * as an error and passed to `onSkip`). It resolves once the
 * consumer has joined its group. A new group without `fromBeginning` starts
 * at the partitions' end as of its first fetch, moments after the join.
 *
 * Errors: kafkajs errors become HeraldErrors (UNAVAILABLE when kafkajs says
 * retriable, else INTERNAL); failing to reach any broker at `connect` is a
 * ConfigError naming `kafka.brokers`.
 */
export class KafkaEventBus extends AbstractEventBus {
  private readonly subscriptions = new Set<KafkaSubscription>();
  private readonly skips: Counter;
  private readonly skipped: Counter;

  private constructor(
    private readonly kafka: Kafka,
    private readonly producer: Producer,
    private readonly admin: Admin,
    private readonly topics: Topics,
    private readonly options: CompiledKafkaOptions,
  ) {
    super({ name: 'KafkaEventBus', noun: 'bus', translate: toHeraldError });
    this.skips = options.meter.counter(
      'herald_event_consumer_skips_total',
      'Holes a consumer group jumped: events deleted by the topic retention before it read them (docs/operations.md, "Kafka topics")',
      ['topic', 'group'],
    );
    this.skipped = options.meter.counter(
      'herald_event_consumer_skipped_total',
      "Events in those holes, where the group's position before the hole is known",
      ['topic', 'group'],
    );
  }

  /**
   * Connects the producer and an admin client. Fails with a ConfigError
   * (setting `kafka.brokers`) if no broker answers within `connectTimeoutMs`,
   * or with a ConfigError naming another setting if an option is invalid.
   */
  static async connect(options: KafkaEventBusOptions): Promise<KafkaEventBus> {
    const o = compileOptions(options);
    let lastProblem: string | undefined;
    const kafka = new Kafka(
      kafkaClientConfig(o, (message) => {
        const connection = /Connection (error|timeout).*/.exec(message);
        if (connection !== null) lastProblem = connection[0];
        else lastProblem ??= message;
      }),
    );
    const producer = kafka.producer({
      idempotent: false,
      allowAutoTopicCreation: true,
      createPartitioner: Partitioners.DefaultPartitioner,
      retry: o.retry,
    });
    const admin = kafka.admin({ retry: o.retry });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Error('deadline');
    try {
      const canCreate = await Promise.race([
        (async () => {
          await admin.connect();
          await producer.connect();
          const cluster = await admin.describeCluster();
          return cluster.brokers.some((broker) => broker.nodeId === cluster.controller);
        })(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(deadline), o.connectTimeoutMs);
        }),
      ]);
      if (!canCreate)
        o.logger.info('kafka: the cluster names no controller; topics are created by metadata requests (auto-create)', {
          brokers: o.brokers,
        });
      return new KafkaEventBus(kafka, producer, admin, new Topics(admin, canCreate, o, o.logger), o);
    } catch (error) {
      await Promise.allSettled([producer.disconnect(), admin.disconnect()]);
      // A broker that refused the credentials is reached fine: the setting to fix is kafka.sasl (its message names the mechanism, not the password).
      if ((error as Error)?.name === 'KafkaJSSASLAuthenticationError')
        throw new ConfigError(
          'kafka.sasl',
          `the brokers refused the credentials: ${String((error as Error).message).replace(/\s+/g, ' ')}`,
        );
      const reason =
        error === deadline
          ? `no answer within ${o.connectTimeoutMs} ms${lastProblem === undefined ? '' : ` (last error: ${lastProblem})`}`
          : String((error as Error)?.message ?? error);
      throw new ConfigError(
        'kafka.brokers',
        `cannot connect to Kafka at ${o.brokers.join(',')}: ${reason.replace(/\s+/g, ' ')}`,
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Does ahead of time what the first publish to each of `topics` would do on
   * a task's path: makes sure the topic exists (createTopics, waiting for its
   * leaders) and loads its partition metadata into the producer (a send of no
   * message fetches it and produces nothing). A process calls it before it
   * says it is ready (docs/operations.md, "Readiness"). Rejects like a publish.
   */
  async warmUp(topics: readonly string[]): Promise<void> {
    await Promise.all(
      topics.map(async (topic) => {
        const kafkaTopic = this.options.topicPrefix + topic;
        await this.topics.ensure(kafkaTopic, topicCleanup(topic));
        try {
          await this.producer.send({ topic: kafkaTopic, acks: -1, messages: [] });
        } catch (error) {
          throw toHeraldError(error, `load the metadata of ${kafkaTopic}`);
        }
      }),
    );
  }

  protected async _publish(topic: string, events: readonly CheckedEvent[]): Promise<void> {
    const kafkaTopic = this.options.topicPrefix + topic;
    await this.topics.ensure(kafkaTopic, topicCleanup(topic));
    try {
      await this.producer.send({ topic: kafkaTopic, acks: -1, messages: events.map(toMessage) });
    } catch (error) {
      throw toHeraldError(error, `publish to ${kafkaTopic}`);
    }
  }

  protected async _subscribe(
    topic: string,
    group: string,
    handler: EventHandler,
    { fromBeginning, retryDelayMs, onSkip }: CheckedSubscribeOptions,
  ): Promise<Subscription> {
    const kafkaTopic = this.options.topicPrefix + topic;
    const cleanup = topicCleanup(topic);
    const groupId = this.options.topicPrefix + group;
    const spec = { topic, group, kafkaTopic, groupId, fromBeginning, retryDelayMs, handler, onSkip, cleanup };
    await this.topics.ensure(kafkaTopic, cleanup);
    const shared = { admin: this.admin, skips: this.skips, skipped: this.skipped };
    const subscription: KafkaSubscription = await KafkaSubscription.start(this.kafka, shared, this.options, spec, () =>
      this.subscriptions.delete(subscription),
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /** Closes every subscription (each waits for its batch in flight), then the producer and admin client. */
  protected async _close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect()]);
  }
}
