import { coordinatorRecorder, startScheduler } from '@herald/scheduler';
import { connectCoordinator, openTaskStore } from '../adapters';
import { startClusterRing } from '../cluster-ring';
import { waitUntil } from '../drain';
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
    const controlInbox = me.controlEndpoint === undefined ? undefined : await links.bindInbox(me.controlEndpoint, `${id}.control`);
    const ring = resources.add('membership', await startClusterRing(config, id, 'scheduler', logger, meter), (r) => r.close());
    const scheduler = resources.add(
      'scheduler',
      await startScheduler({
        config: { ...config, scheduler: { ...config.scheduler, id } },
        store,
        inbox,
        ...(controlInbox ? { controlInbox } : {}),
        toDispatcher: await links.toDispatchers(),
        ring: () => ring.current(),
        mayAdopt: () => ring.isCurrent(),
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
    const handedOff = async () => (await store.listLiveTasks()).every((task) => task.owner !== id);
    return {
      description: `scheduler ${id} on ${me.endpoint}`,
      status: () => ({ scheduler: scheduler.stats(), membership: ring.status() }),
      async drain() {
        // Leave the membership, but keep working: the survivors see no Hello for deadIntervalMs,
        // agree on a ring without this process and claim its tasks (epoch + 1), which fences it
        // out task by task. Only then stop, so nothing waits for a scheduler that is gone.
        const others = ring.current().members.filter((m) => m !== id);
        await ring.close();
        if (production.apta === null || others.length === 0) {
          logger.warn('drain: no other scheduler can take this one\'s tasks (static ring or alone); they resume when it is back', { id });
        } else if (!(await waitUntil(handedOff, config.management.drainTimeoutMs))) {
          logger.warn('drain: not every task was claimed by another scheduler in time; stopping anyway (the sweep adopts the rest)', { id, timeoutMs: config.management.drainTimeoutMs });
        } else logger.info('drain: every task of this scheduler was claimed by another', { id });
        await resources.closeAll();
      },
      stop: () => resources.closeAll(),
    };
  });
}
