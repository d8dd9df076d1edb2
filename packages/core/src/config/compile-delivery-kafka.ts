import { ConfigError } from '../errors';
import { checkPlainHasTls, compileKafkaSasl, compileTlsFiles } from './compile-connection-security';
import { checkKafkaBrokers } from './kafka-settings';
import { DEFAULTS, type KafkaDeliveryConfig } from './options';
import { checkKnownKeys, int } from './validate';

/** Kafka's own rule for a topic name (kafka.common.internals.Topic): legal characters, at most 249, not '.' or '..'. */
const TOPIC = /^[A-Za-z0-9._-]{1,249}$/;

/** The settings of `delivery.kafka`. */
export const KAFKA_DELIVERY_KEYS = [
  'brokers',
  'topic',
  'clientId',
  'timeoutMs',
  'maxRecordBytes',
  'keyShiftBits',
  'idempotent',
  'sasl',
  'tls',
  'maxAttempts',
  'retryDelayMs',
  'pacing',
] as const;

/** delivery.kafka.topic, or any setting naming a topic: Kafka's rule, so a typo fails at start, not on the first batch. */
export function checkKafkaTopic(value: unknown, setting: string): string {
  if (typeof value !== 'string' || !TOPIC.test(value) || value === '.' || value === '..')
    throw new ConfigError(
      setting,
      `must be a Kafka topic name: 1 to 249 of letters, digits, _ . - and not '.' or '..' (got ${JSON.stringify(value)})`,
    );
  return value;
}

/**
 * `delivery.kafka` less its pacing (compile-delivery.ts adds it, as for the
 * webhook): the brokers and topic required and checked as Kafka reads them,
 * SASL and TLS as `kafka.sasl` / `kafka.tls` are (same checks, named under
 * `delivery.kafka`). Every bad value is a ConfigError naming its setting.
 */
export function compileKafkaDelivery(value: unknown): Omit<KafkaDeliveryConfig, 'pacing'> {
  const path = 'delivery.kafka';
  if (value === undefined) throw new ConfigError(`${path}.brokers`, "is required with delivery.kind 'kafka'");
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ConfigError(path, 'must be an object');
  checkKnownKeys(path, value, [...KAFKA_DELIVERY_KEYS]);
  const kafka = value as Partial<Record<(typeof KAFKA_DELIVERY_KEYS)[number], unknown>>;
  if (kafka.brokers === undefined) throw new ConfigError(`${path}.brokers`, "is required with delivery.kind 'kafka'");
  const brokers = checkKafkaBrokers(kafka.brokers, `${path}.brokers`);
  if (kafka.topic === undefined) throw new ConfigError(`${path}.topic`, "is required with delivery.kind 'kafka'");
  const topic = checkKafkaTopic(kafka.topic, `${path}.topic`);
  const d = DEFAULTS.delivery.kafka;
  const clientId = kafka.clientId ?? d.clientId;
  if (typeof clientId !== 'string' || !/^[A-Za-z0-9._-]{1,128}$/.test(clientId))
    throw new ConfigError(
      `${path}.clientId`,
      `must be 1 to 128 of letters, digits, _ . - (got ${JSON.stringify(clientId)})`,
    );
  const idempotent = kafka.idempotent ?? d.idempotent;
  if (typeof idempotent !== 'boolean') throw new ConfigError(`${path}.idempotent`, 'must be true or false');
  const sasl = compileKafkaSasl(kafka.sasl, `${path}.sasl`);
  const tls = compileTlsFiles(kafka.tls, `${path}.tls`);
  if (sasl !== null) checkPlainHasTls(sasl.mechanism, tls !== null, `${path}.sasl.mechanism`);
  return {
    brokers,
    topic,
    clientId,
    timeoutMs: int(`${path}.timeoutMs`, kafka.timeoutMs, d.timeoutMs, 100, 600_000),
    maxRecordBytes: int(`${path}.maxRecordBytes`, kafka.maxRecordBytes, d.maxRecordBytes, 1024, 100_000_000),
    keyShiftBits: int(`${path}.keyShiftBits`, kafka.keyShiftBits, d.keyShiftBits, 0, 32),
    idempotent,
    sasl,
    tls,
    maxAttempts: int(`${path}.maxAttempts`, kafka.maxAttempts, d.maxAttempts, 1, 100),
    retryDelayMs: int(`${path}.retryDelayMs`, kafka.retryDelayMs, d.retryDelayMs, 0, 60_000),
  };
}
