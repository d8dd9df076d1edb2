import { HashRing } from '@herald/core';
import { coordinatorRecorder, startScheduler } from '@herald/scheduler';
import { connectCoordinator, openTaskStore } from '../adapters';
import { ProcessLinks } from '../links';
import { memberOf } from './member';
import { Resources } from './resources';
import type { RunningTier, TierContext } from './tier';

/**
 * A scheduler process: owns the tasks the ring gives it (static membership
 * from the topology until APTA), records unit progress in ZooKeeper first.
 */
export async function startSchedulerTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const production = config.production!;
  const me = memberOf(production, 'schedulers', id);
  const resources = new Resources();
  return resources.starting(async () => {
    const store = resources.add('task store', await openTaskStore(config, logger), (s) => s.close());
    const coordinator = resources.add('coordinator', await connectCoordinator(config, logger), (c) => c.close());
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const inbox = await links.bindInbox(me.endpoint);
    const ring = new HashRing(production.topology.schedulers.map((m) => m.id));
    resources.add(
      'scheduler',
      await startScheduler({
        config: { ...config, scheduler: { ...config.scheduler, id } },
        store,
        inbox,
        toDispatcher: await links.toDispatchers(),
        ring: () => ring,
        progress: coordinatorRecorder(store, coordinator),
        logger,
        meter,
      }),
      (s) => {
        links.close(); // first: a send blocked on a dispatcher that is gone would keep stop() waiting
        return s.stop();
      },
    );
    return { description: `scheduler ${id} on ${me.endpoint}`, stop: () => resources.closeAll() };
  });
}
