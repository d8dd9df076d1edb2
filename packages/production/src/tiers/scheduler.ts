import { coordinatorRecorder, startScheduler } from '@herald/scheduler';
import { connectCoordinator, openTaskStore } from '../adapters';
import { startClusterRing } from '../cluster-ring';
import { ProcessLinks } from '../links';
import { memberOf } from './member';
import { Resources } from './resources';
import type { RunningTier, TierContext } from './tier';

/**
 * A scheduler process: owns the tasks the ring gives it (APTA's agreed ring
 * when the topology names membership endpoints, else the static list of
 * schedulers), records unit progress in ZooKeeper first.
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
    const ring = resources.add('membership', await startClusterRing(config, id, 'scheduler', logger, meter), (r) => r.close());
    const scheduler = resources.add(
      'scheduler',
      await startScheduler({
        config: { ...config, scheduler: { ...config.scheduler, id } },
        store,
        inbox,
        toDispatcher: await links.toDispatchers(),
        ring: () => ring.current(),
        progress: coordinatorRecorder(store, coordinator),
        logger,
        meter,
      }),
      (s) => {
        links.close(); // first: a send blocked on a dispatcher that is gone would keep stop() waiting
        return s.stop();
      },
    );
    // A new ring moves tasks: release what another member owns now, adopt (epoch + 1) what this one does.
    ring.onChange(() => void scheduler.rebalance().then((moved) => logger.info('rebalanced after a ring change', { ...moved }), (error: unknown) => logger.error('rebalance failed; the next sweep retries', { error: String(error) })));
    return { description: `scheduler ${id} on ${me.endpoint}`, stop: () => resources.closeAll() };
  });
}
