import { Kafka, logLevel, type Admin, type Consumer } from 'kafkajs';
import { waitFor } from '../wait-for';
import type { ReceivedDelivery } from './conformance';

/** One record of the Kafka delivery channel as a consumer reads it (docs/delivery.md, "The Kafka topic"). */
export interface DeliveryRecordRead {
  partition: number;
  offset: string;
  /** The record key: `uin >>> keyShiftBits` of every uin in it, in decimal. */
  key: string;
  /** The record headers, as text. */
  headers: Record<string, string>;
  /** The value, parsed JSON (docs/schemas/delivery-record.schema.json). */
  value: unknown;
  /** The record's timestamp, ms: its create time, which the producer sets when it sends it. */
  timestamp: number;
}

export interface KafkaDeliveryConsumerOptions {
  brokers: readonly string[];
  topic: string;
  /** @defaultValue a group of its own, so it reads the topic from its start */
  groupId?: string;
}

/**
 * The reference consumer of the Kafka delivery channel, for tests and as the
 * contract a push service's consumer implements: reads the topic from its
 * start in a consumer group, decodes each record (JSON value, the batch's
 * idempotency key in a header), and gives what was delivered, deduplicated
 * on (taskId, uin) as the channel's at-least-once asks. Timing suits
 * librdkafka's mock cluster (the jest global setup's).
 */
export class KafkaDeliveryConsumer {
  readonly records: DeliveryRecordRead[] = [];
  /** Next offset to read, per partition. */
  private readonly next = new Map<number, bigint>();

  private constructor(
    private readonly consumer: Consumer,
    private readonly admin: Admin,
    readonly topic: string,
  ) {}

  static async start({ brokers, topic, groupId }: KafkaDeliveryConsumerOptions): Promise<KafkaDeliveryConsumer> {
    const kafka = new Kafka({
      clientId: 'herald-delivery-consumer',
      brokers: [...brokers],
      logLevel: logLevel.NOTHING,
    });
    const consumer = kafka.consumer({
      groupId:
        groupId ?? `herald-delivery-consumer-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
      sessionTimeout: 6_000,
      rebalanceTimeout: 6_000,
      heartbeatInterval: 500,
      maxWaitTimeInMs: 100,
      allowAutoTopicCreation: true,
    });
    const admin = kafka.admin();
    await admin.connect();
    const reader = new KafkaDeliveryConsumer(consumer, admin, topic);
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {}))
          headers[name] = Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
        reader.records.push({
          partition,
          offset: message.offset,
          key: message.key?.toString('utf8') ?? '',
          headers,
          value: JSON.parse(message.value?.toString('utf8') ?? 'null') as unknown,
          timestamp: Number(message.timestamp),
        });
        reader.next.set(partition, BigInt(message.offset) + 1n);
      },
    });
    return reader;
  }

  /** Waits until every record the topic holds now has been read (its high-water marks reached). */
  async caughtUp(timeoutMs = 20_000): Promise<void> {
    const ends = await this.admin.fetchTopicOffsets(this.topic);
    await waitFor(() => ends.every(({ partition, high }) => (this.next.get(partition) ?? 0n) >= BigInt(high)), {
      timeoutMs,
      intervalMs: 20,
      message: `the delivery consumer reaching the end of ${this.topic}`,
    });
  }

  /** Every record as a delivery, in the order read (per partition in offset order). */
  deliveries(): ReceivedDelivery[] {
    return this.records.map(({ value }) => {
      const v = value as ReceivedDelivery & { v: number };
      return {
        taskId: v.taskId,
        uins: v.uins,
        atLogin: v.atLogin,
        content: v.content,
        displayAt: v.displayAt,
        ...(v.contents === undefined ? {} : { contents: v.contents }),
      };
    });
  }

  /** The distinct uins delivered for a task, ascending (a record read twice counts once). */
  uinsOf(taskId: number): number[] {
    const uins = new Set<number>();
    for (const d of this.deliveries()) if (d.taskId === taskId) for (const uin of d.uins) uins.add(uin);
    return [...uins].sort((a, b) => a - b);
  }

  async stop(): Promise<void> {
    await Promise.allSettled([this.consumer.disconnect(), this.admin.disconnect()]);
  }
}
