import {
  DEFAULTS,
  checkKafkaBrokers,
  checkKafkaPartitions,
  checkKafkaReplicationFactor,
  checkKafkaTopicPrefix,
  kafkaMs,
} from '@herald/core/config';
import { ConfigError } from '@herald/core';
import { noopLogger, noopMeter, type Logger, type Meter } from '@herald/core/ports';
import type { ISocketFactory } from 'kafkajs';
import { compileKafkaSecurity, type KafkaSaslCredentials, type KafkaSecurity, type KafkaTlsMaterial } from './security';

/**
 * Options of `KafkaEventBus.connect`, documented with their defaults. Consumer
 * group timing follows kafkajs's defaults; tests against librdkafka's mock
 * cluster shorten them (see docs/architecture.md, "Topics").
 */
export interface KafkaEventBusOptions {
  /** Seed brokers, "host:port" (setting `kafka.brokers`). */
  brokers: readonly string[];
  /** Names this process to the brokers (setting `kafka.clientId`). */
  clientId: string;
  /**
   * Prepended to every topic and consumer group name, so several Herald
   * installations can share one cluster. `ConsumedEvent.topic` is the name
   * without it: letters, digits, _ . -, at most 64. @defaultValue ''
   */
  topicPrefix?: string;
  /** kafkajs's own log lines go here (its errors as warnings: it recovers from them itself). @defaultValue noopLogger */
  logger?: Logger;
  /** Where herald_event_consumer_skipped_total{topic,group} is counted (events a group never read). @defaultValue noopMeter */
  meter?: Meter;
  /** `connect()` gives up after this long with a ConfigError naming `kafka.brokers`; within core's KAFKA_LIMITS. @defaultValue 10000 */
  connectTimeoutMs?: number;
  /** Opens the TCP/TLS connections (kafkajs `socketFactory`); tests inject faults here. @defaultValue kafkajs's */
  socketFactory?: ISocketFactory;
  /** Partitions of the topics this bus creates (where the cluster lets clients create topics). @defaultValue 3 */
  partitions?: number;
  /** Replication factor of created topics; -1 takes the broker's default. @defaultValue -1 */
  replicationFactor?: number;
  /** A request without an answer after this long fails (and is retried). @defaultValue 30000 */
  requestTimeoutMs?: number;
  /** Retries of a failed request, with exponential backoff from `initialRetryMs` up to `maxRetryMs`. @defaultValue 5 */
  retries?: number;
  /** @defaultValue 300 */
  initialRetryMs?: number;
  /** @defaultValue 30000 */
  maxRetryMs?: number;
  /** A consumer not heard from for this long leaves its group. @defaultValue 30000 */
  sessionTimeoutMs?: number;
  /** How long a group waits for its members to rejoin during a rebalance. @defaultValue 60000 */
  rebalanceTimeoutMs?: number;
  /** @defaultValue 3000 */
  heartbeatIntervalMs?: number;
  /** Longest a fetch waits at the broker for new events (also bounds how long closing a subscription waits). @defaultValue 1000 */
  maxWaitTimeMs?: number;
  /** `subscribe` fails (UNAVAILABLE, retriable) if the consumer has not joined its group after this long. @defaultValue 60000 */
  joinTimeoutMs?: number;
  /** SASL authentication (setting `kafka.sasl`). @defaultValue none */
  sasl?: KafkaSaslCredentials;
  /** TLS to the brokers (setting `kafka.tls`). @defaultValue plaintext */
  tls?: KafkaTlsMaterial;
}

export interface CompiledKafkaOptions {
  brokers: string[];
  clientId: string;
  topicPrefix: string;
  logger: Logger;
  meter: Meter;
  connectTimeoutMs: number;
  socketFactory: ISocketFactory | undefined;
  partitions: number;
  replicationFactor: number;
  requestTimeoutMs: number;
  retry: { retries: number; initialRetryTime: number; maxRetryTime: number };
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  maxWaitTimeMs: number;
  joinTimeoutMs: number;
  security: KafkaSecurity;
}

function positive(setting: string, value: number, min = 1): number {
  if (!Number.isSafeInteger(value) || value < min)
    throw new ConfigError(setting, `must be an integer >= ${min} (got ${String(value)})`);
  return value;
}

/** Options -> defaults -> checked, compiled settings; a bad value is a ConfigError naming its setting. */
export function compileOptions({
  brokers,
  clientId,
  topicPrefix = '',
  logger = noopLogger,
  meter = noopMeter,
  connectTimeoutMs = 10_000,
  socketFactory,
  partitions = DEFAULTS.kafka.partitions,
  replicationFactor = DEFAULTS.kafka.replicationFactor,
  requestTimeoutMs = 30_000,
  retries = 5,
  initialRetryMs = 300,
  maxRetryMs = 30_000,
  sessionTimeoutMs = 30_000,
  rebalanceTimeoutMs = 60_000,
  heartbeatIntervalMs = 3_000,
  maxWaitTimeMs = 1_000,
  joinTimeoutMs = 60_000,
  sasl,
  tls,
}: KafkaEventBusOptions): CompiledKafkaOptions {
  // brokers, topicPrefix, connectTimeoutMs, partitions and replicationFactor are checked as compileConfig checks them (core's kafka settings).
  const seeds = checkKafkaBrokers(brokers);
  if (typeof clientId !== 'string' || clientId.length === 0)
    throw new ConfigError('kafka.clientId', 'must be a non-empty string');
  const prefix = checkKafkaTopicPrefix(topicPrefix);
  if (heartbeatIntervalMs >= sessionTimeoutMs)
    throw new ConfigError('kafka.heartbeatIntervalMs', 'must be below kafka.sessionTimeoutMs');
  return {
    brokers: seeds,
    clientId,
    topicPrefix: prefix,
    logger,
    meter,
    connectTimeoutMs: kafkaMs('connectTimeoutMs', connectTimeoutMs),
    socketFactory,
    partitions: checkKafkaPartitions(partitions),
    replicationFactor: checkKafkaReplicationFactor(replicationFactor),
    requestTimeoutMs: positive('kafka.requestTimeoutMs', requestTimeoutMs),
    retry: {
      retries: positive('kafka.retries', retries, 0),
      initialRetryTime: positive('kafka.initialRetryMs', initialRetryMs),
      maxRetryTime: positive('kafka.maxRetryMs', maxRetryMs),
    },
    sessionTimeoutMs: positive('kafka.sessionTimeoutMs', sessionTimeoutMs),
    rebalanceTimeoutMs: positive('kafka.rebalanceTimeoutMs', rebalanceTimeoutMs),
    heartbeatIntervalMs: positive('kafka.heartbeatIntervalMs', heartbeatIntervalMs),
    maxWaitTimeMs: positive('kafka.maxWaitTimeMs', maxWaitTimeMs, 0),
    joinTimeoutMs: positive('kafka.joinTimeoutMs', joinTimeoutMs),
    security: compileKafkaSecurity(sasl, tls),
  };
}
