/**
 * @module @herald/core
 *
 * What every Herald package shares, whatever its area: the one error family (`HeraldError`
 * with a stable `code` and a `retriable` flag; callers branch on `ErrorCodes`, never on
 * message text), secret redaction for anything echoed, the private file modes, and a seeded
 * random source for tests and benchmarks. Core is pure: no I/O, no timers; every other
 * package depends on it and it depends on nothing.
 * Everything else has its own entry point, one per folder of src/ (`@herald/core/task`,
 * `@herald/core/config`, `@herald/core/ports`, ...; the table in docs/architecture.md);
 * each name is exported from exactly one of them.
 *
 * @example
 *   import { ErrorCodes, isHeraldError } from '@herald/core';
 *   if (isHeraldError(err) && err.code === ErrorCodes.TASK_NOT_FOUND) return undefined;
 */
export {
  ErrorCodes,
  HeraldError,
  ConfigError,
  ValidationError,
  NotFoundError,
  AccessDeniedError,
  RateLimitedError,
  ListFormatError,
  IllegalTransitionError,
  FencedError,
  FrameError,
  QueryError,
  TemplateError,
  AudienceSourceError,
  AccountQuotaError,
  isHeraldError,
} from './errors';
export type { ErrorCode, HeraldErrorOptions } from './errors';
export { PRIVATE_FILE_MODE, PRIVATE_DIR_MODE, GROUP_READ_FILE_MODE } from './file-modes';
export { redactSecrets } from './redact';
export { mulberry32, seededRandom } from './random';
// Setting checks shared with adapters that take the same settings as options (one set of bounds and messages).
export { int as intSetting } from './config/validate';
export { checkClientCertPair, checkKafkaSaslMechanism, checkPlainHasTls } from './config/compile-connection-security';
export { KAFKA_LIMITS, checkKafkaBrokers, checkKafkaTopicPrefix, kafkaMs } from './config/kafka-settings';
export { ZOOKEEPER_LIMITS, checkZnodePath, checkZooKeeperConnectionString, checkZooKeeperCredentials, checkZooKeeperMonitorDigest, checkZooKeeperRoot, zookeeperMs } from './config/zookeeper-settings';
export { AdapterLifecycle } from './adapter/lifecycle';
export type { AdapterLifecycleOptions, ErrorTranslator } from './adapter/lifecycle';
export { AbstractTaskStore, taskNotFound, unitNotFound } from './adapter/abstract-task-store';
export type { TaskStoreBaseOptions } from './adapter/abstract-task-store';
export { AbstractEventBus } from './adapter/abstract-event-bus';
export type { EventBusBaseOptions, EventHandler } from './adapter/abstract-event-bus';
export { AbstractFrequencyCounter } from './adapter/abstract-frequency-counter';
export type { FrequencyCounterBaseOptions } from './adapter/abstract-frequency-counter';
