import { logLevel, type KafkaConfig } from 'kafkajs';
import { kafkaLogCreator } from './log-creator';
import type { CompiledKafkaOptions } from './options';

/** kafkajs's default for one TCP connect; `connectTimeoutMs` caps it. */
const TCP_CONNECT_TIMEOUT_MS = 1000;

/**
 * The kafkajs client config for compiled options: what the bus's producer,
 * admin client and consumers connect with. Kept as its own function so a
 * test can check that SASL and TLS reach kafkajs exactly as configured
 * (librdkafka's mock cluster, the test broker, cannot enforce either).
 * `onProblem` hears kafkajs's error lines, for connect's failure message.
 */
export function kafkaClientConfig(o: CompiledKafkaOptions, onProblem: (message: string) => void): KafkaConfig {
  return {
    clientId: o.clientId,
    brokers: o.brokers,
    connectionTimeout: Math.min(TCP_CONNECT_TIMEOUT_MS, o.connectTimeoutMs),
    requestTimeout: o.requestTimeoutMs,
    retry: o.retry,
    ...(o.socketFactory === undefined ? {} : { socketFactory: o.socketFactory }),
    ...(o.security.ssl === undefined ? {} : { ssl: o.security.ssl }),
    ...(o.security.sasl === undefined ? {} : { sasl: o.security.sasl }),
    // kafkajs's authentication failures are errors, logged as warnings: their text names the mechanism and the broker, not the password.
    logLevel: logLevel.INFO,
    logCreator: kafkaLogCreator(o.logger, onProblem),
  };
}
