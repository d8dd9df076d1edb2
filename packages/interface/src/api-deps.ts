import type { Clock, HeraldConfig, Logger, TaskStore } from '@herald/core';
import type { ListRepository } from '@herald/audience';
import type { PushChannel } from '@herald/transport';

export interface ApiDeps {
  config: HeraldConfig;
  store: TaskStore;
  lists: ListRepository;
  /** task.submitted and task.command go to the scheduler. */
  toScheduler: PushChannel;
  clock: Clock;
  logger: Logger;
  /** The list ids blacklists are stored under (the dispatcher reads the same ids). */
  blacklistIds: { global: string; forAccount(accountId: string): string };
  /** Prometheus exposition for GET /metrics, when a registry is wired. */
  metrics?: () => Promise<{ contentType: string; body: string }>;
}
