import type { Coordinator, EventBus, HeraldConfig, Logger, TaskStore } from '@herald/core';
import { MySqlTaskStore } from '@herald/store-mysql';
import { ZooKeeperCoordinator } from '@herald/coordinator-zookeeper';
import { KafkaEventBus } from '@herald/events-kafka';

/**
 * The production adapters of each port, opened from the compiled config. Each
 * fails at start with a ConfigError naming its setting when its server cannot
 * be reached or refuses the credentials.
 */
export function openTaskStore(config: HeraldConfig): Promise<TaskStore> {
  const { mysql } = config.production!;
  return MySqlTaskStore.open({ url: mysql.url, database: mysql.database, poolSize: mysql.poolSize });
}

export function connectCoordinator(config: HeraldConfig, logger: Logger): Promise<Coordinator> {
  const { zookeeper } = config.production!;
  return ZooKeeperCoordinator.connect({
    connectionString: zookeeper.connectionString,
    root: zookeeper.root,
    sessionTimeoutMs: zookeeper.sessionTimeoutMs,
    connectTimeoutMs: zookeeper.connectTimeoutMs,
    logger,
  });
}

export function connectEventBus(config: HeraldConfig, id: string, logger: Logger): Promise<EventBus> {
  const { kafka } = config.production!;
  return KafkaEventBus.connect({
    brokers: kafka.brokers,
    clientId: `${kafka.clientId}-${id}`,
    topicPrefix: kafka.topicPrefix,
    connectTimeoutMs: kafka.connectTimeoutMs,
    logger,
  });
}
