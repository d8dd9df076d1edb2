import { ConfigError, ErrorCodes, HeraldError } from '@herald/core';
import { checkKafkaBrokers, checkKafkaTopic } from '@herald/core/config';
import { noopLogger, type Delivery, type DeliveryGateway, type DeliveryResult, type Logger } from '@herald/core/ports';
import { Kafka, logLevel, Partitioners, type ISocketFactory, type Producer } from 'kafkajs';
import { deliveryRecords, batchIdempotencyKey, RecordTooLarge } from './delivery-record';
import { innermost, type KafkaJsErrorLike } from './errors';
import { kafkaLogCreator } from './log-creator';
import { compileKafkaSecurity, type KafkaSaslCredentials, type KafkaTlsMaterial } from './security';

/** Options of `KafkaDeliveryGateway.connect` (settings `delivery.kafka.*`, docs/configuration.md). */
export interface KafkaDeliveryGatewayOptions {
  brokers: readonly string[];
  topic: string;
  /** Names the producer to the brokers. */
  clientId: string;
  /** A produce not acknowledged by every in-sync replica by then failed (UNAVAILABLE); also bounds `connect`. @defaultValue 10000 */
  timeoutMs?: number;
  /** Largest record value: a batch larger is split; one recipient's record larger refuses the batch. @defaultValue 900000 */
  maxRecordBytes?: number;
  /** Records are keyed by `uin >>> keyShiftBits`. @defaultValue 20 */
  keyShiftBits?: number;
  /** kafkajs's idempotent producer (one request in flight per broker; needs a cluster with a controller). @defaultValue false */
  idempotent?: boolean;
  sasl?: KafkaSaslCredentials;
  tls?: KafkaTlsMaterial;
  /** Opens the TCP/TLS connections (kafkajs `socketFactory`); tests inject faults here. */
  socketFactory?: ISocketFactory;
  /** kafkajs's own log lines (its errors as warnings). @defaultValue noopLogger */
  logger?: Logger;
}

/** Broker errors that refuse the records themselves: sending them again unchanged would be refused again. */
const REFUSED = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'CORRUPT_MESSAGE']);
/** Broker errors that say a quota is exceeded (a produce quota itself only delays the answer: pacing sees latency). */
const THROTTLED = new Set(['THROTTLING_QUOTA_EXCEEDED', 'POLICY_VIOLATION_QUOTA']);

/**
 * A DeliveryGateway that writes each batch to a Kafka topic (docs/delivery.md,
 * "The Kafka topic"), once per `deliver`, with acks from every in-sync
 * replica (acks=all): `deliver` resolves once the records are durable. The
 * records (delivery-record.ts): one per uin range `uin >>> keyShiftBits` the
 * batch touches, keyed by it and partitioned by the Java client's default
 * (murmur2 of the key), the batch's idempotency key in a header, the value
 * JSON as docs/schemas/delivery-record.schema.json says. Outcomes:
 * - written: accepted, no recipient rejected (a topic has no per-recipient answer);
 * - no broker, no acknowledgement within `timeoutMs`, a leader moving: UNAVAILABLE (retriable);
 * - a record the broker refuses (too large, invalid) or one recipient's record
 *   over `maxRecordBytes`: DELIVERY_REJECTED;
 * - a quota error: DELIVERY_THROTTLED (retriable).
 */
export class KafkaDeliveryGateway implements DeliveryGateway {
  private closed = false;

  private constructor(
    private readonly producer: Producer,
    private readonly o: Required<
      Pick<KafkaDeliveryGatewayOptions, 'topic' | 'timeoutMs' | 'maxRecordBytes' | 'keyShiftBits'>
    >,
  ) {}

  /**
   * Connects the producer and checks that the topic exists. Fails with a
   * ConfigError naming `delivery.kafka.brokers` when no broker answers within
   * `timeoutMs`, `delivery.kafka.topic` when the cluster has no such topic,
   * `delivery.kafka.sasl` when the brokers refuse the credentials.
   */
  static async connect(options: KafkaDeliveryGatewayOptions): Promise<KafkaDeliveryGateway> {
    const brokers = checkKafkaBrokers(options.brokers, 'delivery.kafka.brokers');
    const topic = checkKafkaTopic(options.topic, 'delivery.kafka.topic');
    const { timeoutMs = 10_000, maxRecordBytes = 900_000, keyShiftBits = 20, idempotent = false } = options;
    const security = compileKafkaSecurity(options.sasl, options.tls);
    const kafka = new Kafka({
      clientId: options.clientId,
      brokers,
      connectionTimeout: Math.min(1000, timeoutMs),
      requestTimeout: timeoutMs,
      // Leader moves and dropped connections are retried inside one deliver's time; the rest is the channel's pacing.
      retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 },
      ...(options.socketFactory === undefined ? {} : { socketFactory: options.socketFactory }),
      ...(security.ssl === undefined ? {} : { ssl: security.ssl }),
      ...(security.sasl === undefined ? {} : { sasl: security.sasl }),
      logLevel: logLevel.ERROR,
      logCreator: kafkaLogCreator(options.logger ?? noopLogger),
    });
    const producer = kafka.producer({
      idempotent,
      ...(idempotent ? { maxInFlightRequests: 1 } : {}),
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    const admin = kafka.admin();
    try {
      await withDeadline(
        (async () => {
          await producer.connect();
          await admin.connect();
          await admin.fetchTopicMetadata({ topics: [topic] });
        })(),
        timeoutMs,
      );
    } catch (error) {
      await producer.disconnect().catch(() => undefined);
      throw connectError(error, brokers, topic, timeoutMs);
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
    return new KafkaDeliveryGateway(producer, { topic, timeoutMs, maxRecordBytes, keyShiftBits });
  }

  async deliver(delivery: Delivery): Promise<DeliveryResult> {
    if (this.closed) throw new HeraldError(ErrorCodes.UNAVAILABLE, 'the Kafka delivery gateway is closed');
    const n = delivery.uins.length;
    if (n === 0) return { rejected: [] };
    const details = { taskId: delivery.taskId, idempotencyKey: batchIdempotencyKey(delivery) };
    const what = `kafka topic ${this.o.topic}, task ${delivery.taskId}'s batch of ${n}`;
    let messages;
    try {
      messages = deliveryRecords(delivery, this.o.keyShiftBits, this.o.maxRecordBytes);
    } catch (error) {
      if (!(error instanceof RecordTooLarge)) throw error;
      throw new HeraldError(
        ErrorCodes.DELIVERY_REJECTED,
        `${what}: refused, ${error.message}, over delivery.kafka.maxRecordBytes (${this.o.maxRecordBytes})`,
        { details },
      );
    }
    try {
      await withDeadline(
        this.producer.send({ topic: this.o.topic, acks: -1, timeout: this.o.timeoutMs, messages }),
        this.o.timeoutMs,
      );
    } catch (error) {
      throw produceOutcome(error, what, details, this.o.timeoutMs);
    }
    return { rejected: [] };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.producer.disconnect();
  }
}

const DEADLINE = new Error('deadline');

/** `work`, or DEADLINE after `ms` (the work itself is abandoned, not stopped). */
async function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(DEADLINE), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What a failed produce says about the batch (docs/delivery.md, "Outcomes"). */
export function produceOutcome(
  error: unknown,
  what: string,
  details: Record<string, unknown>,
  timeoutMs: number,
): HeraldError {
  if (error === DEADLINE)
    return new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: not acknowledged within ${timeoutMs} ms`, {
      retriable: true,
      details,
    });
  const root = innermost((error ?? {}) as KafkaJsErrorLike);
  const type = typeof root.type === 'string' ? root.type : undefined;
  const said = `${typeof root.name === 'string' ? root.name : 'error'}: ${String(root.message ?? error)}`;
  const all = { ...details, ...(type === undefined ? {} : { type }) };
  if (type !== undefined && REFUSED.has(type))
    return new HeraldError(ErrorCodes.DELIVERY_REJECTED, `${what}: refused, ${said}`, { details: all, cause: error });
  if (type !== undefined && THROTTLED.has(type))
    return new HeraldError(ErrorCodes.DELIVERY_THROTTLED, `${what}: throttled, ${said}`, {
      retriable: true,
      details: all,
      cause: error,
    });
  return new HeraldError(ErrorCodes.UNAVAILABLE, `${what}: ${said}`, { retriable: true, details: all, cause: error });
}

/** Why connect failed, as one line naming the setting to fix. */
function connectError(error: unknown, brokers: string[], topic: string, timeoutMs: number): ConfigError {
  const message = String((error as Error)?.message ?? error).replace(/\s+/g, ' ');
  if ((error as Error)?.name === 'KafkaJSSASLAuthenticationError')
    return new ConfigError('delivery.kafka.sasl', `the brokers refused the credentials: ${message}`);
  const root = innermost((error ?? {}) as KafkaJsErrorLike);
  if (root.type === 'UNKNOWN_TOPIC_OR_PARTITION')
    return new ConfigError('delivery.kafka.topic', `the brokers at ${brokers.join(',')} have no topic ${topic}`);
  const reason = error === DEADLINE ? `no answer within ${timeoutMs} ms` : message;
  return new ConfigError('delivery.kafka.brokers', `cannot connect to Kafka at ${brokers.join(',')}: ${reason}`);
}
