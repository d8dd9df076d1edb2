import { HashRing } from '@herald/core';
import { coordinatorRecorder, startScheduler } from '@herald/scheduler';
import { connectCoordinator, openTaskStore } from '../adapters';
import { ProcessLinks } from '../links';
import { memberOf } from './member';
import type { RunningTier, TierContext } from './tier';

/**
 * A scheduler process: owns the tasks the ring gives it (static membership
 * from the topology until APTA), records unit progress in ZooKeeper first.
 */
export async function startSchedulerTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const production = config.production!;
  const me = memberOf(production, 'schedulers', id);
  const store = await openTaskStore(config);
  const coordinator = await connectCoordinator(config, logger);
  const links = await ProcessLinks.open(config, id, logger, meter);
  const inbox = await links.bindInbox(me.endpoint);
  const ring = new HashRing(production.topology.schedulers.map((m) => m.id));
  const scheduler = await startScheduler({
    config: { ...config, scheduler: { ...config.scheduler, id } },
    store,
    inbox,
    toDispatcher: await links.toDispatchers(),
    ring: () => ring,
    progress: coordinatorRecorder(store, coordinator),
    logger,
    meter,
  });
  return {
    description: `scheduler ${id} on ${me.endpoint}`,
    async stop() {
      links.close();
      await scheduler.done;
      await coordinator.close();
      await store.close();
    },
  };
}
