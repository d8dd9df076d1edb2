import { retryingCoordinator, type RetryOptions } from '@herald/core/retry';
import type {
  AccessStore,
  AccountStore,
  CampaignStore,
  Coordinator,
  DeviceRegistry,
  FrequencyCounter,
  Logger,
  Meter,
  TaskStore,
  UserAttributeLookup,
} from '@herald/core/ports';
import type { HeraldConfig } from '@herald/core/config';
import {
  MySqlAccessStore,
  MySqlAccountStore,
  MySqlAttributeIndex,
  MySqlCampaignStore,
  MySqlFrequencyCounter,
  MySqlDeviceRegistry,
  MySqlTaskStore,
  type MySqlTaskStoreOptions,
} from '@herald/store-mysql';
import { ZooKeeperCoordinator } from '@herald/coordinator-zookeeper';
import { KafkaEventBus } from '@herald/events-kafka';
import { kafkaSecurityOptions, mysqlOptions, zookeeperAuthOptions } from './connection-security';

/**
 * The production adapters of each port, opened from the compiled config. Each
 * fails at start with a ConfigError naming its setting when its server cannot
 * be reached or refuses the credentials.
 *
 * Retries are explicit, per method: each MySQL adapter marks the calls that
 * are safe to repeat (reads, idempotent writes, writes a repeat of which the
 * stored state refuses) and retries only those with the options given at
 * open (`retry`); an AUTO_INCREMENT insert such as `appendAudit`, or a task
 * created without an idempotency key, runs once, so a reply lost after
 * commit never writes twice. The coordinator's choice is in core
 * `retryingCoordinator`. The event bus's client retries its own requests.
 */
/**
 * Calls after a successful start ride out outages of their server (a MySQL or
 * ZooKeeper restart) for up to two minutes, with jittered backoff.
 */
export function outageRetries(logger: Logger, server: string): RetryOptions {
  return {
    deadlineMs: 120_000,
    maxDelayMs: 2000,
    now: Date.now,
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    onRetry: (error, attempt, delayMs) =>
      logger.warn(`${server} unavailable; retrying`, { attempt, delayMs, error: String(error) }),
  };
}

export async function openTaskStore(config: HeraldConfig, logger: Logger): Promise<TaskStore> {
  return MySqlTaskStore.open(mysqlRetrying(config, logger));
}

/** API tokens and the audit log, in the task store's database (migrations/004_access.sql). */
export async function openAccessStore(config: HeraldConfig, logger: Logger): Promise<AccessStore> {
  return MySqlAccessStore.open(mysqlRetrying(config, logger));
}

/** Cron campaigns and their firing history, in the task store's database (migrations/005_campaigns.sql). */
export async function openCampaignStore(config: HeraldConfig, logger: Logger): Promise<CampaignStore> {
  return MySqlCampaignStore.open(mysqlRetrying(config, logger));
}

/**
 * The frequency counter every dispatcher and executor shares (docs/frequency.md):
 * frequency_uses in the task store's database (migrations/009_frequency.sql).
 * Only opened with frequency.enabled.
 */
export async function openFrequencyCounter(config: HeraldConfig, logger: Logger): Promise<FrequencyCounter> {
  return MySqlFrequencyCounter.open(mysqlRetrying(config, logger));
}

/** Users' attributes for template tasks (docs/delivery.md): the targeting store's user_attributes table (migrations/007_audiences.sql), read by primary key. */
export async function openUserAttributeLookup(
  config: HeraldConfig,
  logger: Logger,
): Promise<UserAttributeLookup & { close(): Promise<void> }> {
  return MySqlAttributeIndex.open(mysqlRetrying(config, logger));
}

/** B-side quotas: account settings and reserved broadcasts, in the task store's database (migrations/008_account_quotas.sql). A retried reserve is answered by its key. */
export async function openAccountStore(config: HeraldConfig, logger: Logger): Promise<AccountStore> {
  return MySqlAccountStore.open(mysqlRetrying(config, logger));
}

/** The mobile-push device registry (docs/delivery.md, "Device registry"): devices in the task store's database (migrations/015_devices.sql). */
export async function openDeviceRegistry(config: HeraldConfig, logger: Logger): Promise<DeviceRegistry> {
  return MySqlDeviceRegistry.open(mysqlRetrying(config, logger));
}

/**
 * Connections each MySQL pool opens when it opens (the migrations check's
 * one). Two would spare the first tasks a handshake, but a process opens a
 * pool per adapter, so a cluster of test processes on one machine then
 * passed MariaDB's default max_connections (151: ER_CON_COUNT_ERROR in a CI
 * run); bench/production.js showed no difference in cold latency either way.
 */
export const WARM_CONNECTIONS = 1;

/** The MySQL settings, with the outage retries every MySQL adapter gives the calls it marks safe to repeat. */
export function mysqlRetrying(config: HeraldConfig, logger: Logger): MySqlTaskStoreOptions {
  return {
    ...mysqlOptions(config.production!.mysql),
    retry: outageRetries(logger, 'MySQL'),
    warmConnections: WARM_CONNECTIONS,
  };
}

export async function connectCoordinator(config: HeraldConfig, logger: Logger): Promise<Coordinator> {
  return retryingCoordinator(await connectZooKeeper(config, logger), outageRetries(logger, 'ZooKeeper'));
}

function connectZooKeeper(config: HeraldConfig, logger: Logger): Promise<Coordinator> {
  const { zookeeper } = config.production!;
  return ZooKeeperCoordinator.connect({
    connectionString: zookeeper.connectionString,
    root: zookeeper.root,
    sessionTimeoutMs: zookeeper.sessionTimeoutMs,
    connectTimeoutMs: zookeeper.connectTimeoutMs,
    auth: zookeeperAuthOptions(zookeeper),
    logger,
  });
}

/** The Kafka event bus; `meter` counts events its consumer groups never read (herald_event_consumer_skipped_total). */
export function connectEventBus(
  config: HeraldConfig,
  id: string,
  logger: Logger,
  meter?: Meter,
): Promise<KafkaEventBus> {
  const { kafka } = config.production!;
  return KafkaEventBus.connect({
    brokers: kafka.brokers,
    clientId: `${kafka.clientId}-${id}`,
    topicPrefix: kafka.topicPrefix,
    connectTimeoutMs: kafka.connectTimeoutMs,
    partitions: kafka.partitions,
    replicationFactor: kafka.replicationFactor,
    ...kafkaSecurityOptions(kafka),
    logger,
    ...(meter === undefined ? {} : { meter }),
  });
}
