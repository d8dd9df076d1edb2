import { ConfigError } from '../errors';
import { DEFAULTS } from './defaults';
import { int } from './validate';

/**
 * The checks of the kafka.* settings the Kafka event bus also takes as
 * options, in one place: compileConfig (the production profile) and the
 * event bus's own options both call these.
 */

/** Bounds of the kafka.* durations compileConfig knows, in ms. */
export const KAFKA_LIMITS = {
  connectTimeoutMs: { min: 100, max: 600_000 },
} as const;

const BROKER = /^[^\s:]+:\d{1,5}$/;
const TOPIC_PREFIX = /^[A-Za-z0-9_.-]{0,64}$/;

/** kafka.brokers: a non-empty list of "host:port". */
export function checkKafkaBrokers(value: unknown, setting = 'kafka.brokers'): string[] {
  if (!Array.isArray(value) || value.length === 0) throw new ConfigError(setting, 'needs at least one "host:port"');
  for (const broker of value) {
    if (typeof broker !== 'string' || !BROKER.test(broker))
      throw new ConfigError(setting, `"${String(broker)}" is not "host:port"`);
  }
  return [...(value as string[])];
}

/** kafka.topicPrefix: letters, digits, _ . -, at most 64 (empty for none). */
export function checkKafkaTopicPrefix(value: unknown, setting = 'kafka.topicPrefix'): string {
  if (typeof value !== 'string' || !TOPIC_PREFIX.test(value))
    throw new ConfigError(setting, `must be letters, digits, _ . -, at most 64 (got ${JSON.stringify(value)})`);
  return value;
}

/** Bounds of kafka.partitions (Kafka itself takes more; more than this many partitions a topic is a mistake here). */
export const KAFKA_PARTITIONS = { min: 1, max: 10_000 } as const;
/** Largest kafka.replicationFactor; -1 (the default) takes the brokers' `default.replication.factor`. */
export const KAFKA_MAX_REPLICATION = 32;

/** kafka.partitions: partitions of each topic Herald creates, an integer within KAFKA_PARTITIONS; the default when absent. */
export function checkKafkaPartitions(value: unknown, setting = 'kafka.partitions'): number {
  return int(setting, value, DEFAULTS.kafka.partitions, KAFKA_PARTITIONS.min, KAFKA_PARTITIONS.max);
}

/** kafka.replicationFactor: -1 (the brokers' default) or 1..KAFKA_MAX_REPLICATION; the default when absent. */
export function checkKafkaReplicationFactor(value: unknown, setting = 'kafka.replicationFactor'): number {
  if (value === -1) return -1;
  return int(setting, value, DEFAULTS.kafka.replicationFactor, 1, KAFKA_MAX_REPLICATION);
}

/** kafka.connectTimeoutMs: an integer within KAFKA_LIMITS, the default when absent. */
export function kafkaMs(name: keyof typeof KAFKA_LIMITS, value: unknown): number {
  const { min, max } = KAFKA_LIMITS[name];
  return int(`kafka.${name}`, value, DEFAULTS.kafka[name], min, max);
}
