import { buildScheduler, Resources, type SchedulerLinks } from '@herald/compose';
import { startClusterRing, type ClusterRing } from '../cluster-ring';
import { waitUntil } from '../drain';
import { ProcessLinks } from '../links';
import { productionAdapters } from './adapter-set';
import { memberOf } from './member';
import type { RunningTier, TierContext } from './tier';

/**
 * A scheduler process: owns the tasks the ring gives it (APTA's agreed ring
 * when the topology names membership endpoints, else the static list of
 * schedulers), records unit progress in ZooKeeper first.
 */
export async function startSchedulerTier(context: TierContext): Promise<RunningTier> {
  const { config, id, logger, meter } = context;
  const production = config.production!;
  const me = memberOf(production, 'schedulers', id);
  const scope = new Resources(logger);
  const openLinks = async (resources: Resources): Promise<SchedulerLinks & { ring: ClusterRing }> => {
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const inbox = await links.bindInbox(me.endpoint);
    const controlInbox =
      me.controlEndpoint === undefined ? undefined : await links.bindInbox(me.controlEndpoint, `${id}.control`);
    const ring = resources.add('membership', await startClusterRing(config, id, 'scheduler', logger, meter), (r) =>
      r.close(),
    );
    return {
      inbox,
      ...(controlInbox ? { controlInbox } : {}),
      toDispatcher: await links.toDispatchers(),
      ring,
      close: () => links.close(),
    };
  };
  return scope.starting(async () => {
    const { scheduler, store, links } = await buildScheduler({
      config,
      id,
      adapters: productionAdapters(context),
      scope,
      links: openLinks,
      logger,
      meter,
    });
    const { ring } = links;
    // A new ring moves tasks: release what another member owns now, adopt (epoch + 1) what this one does.
    ring.onChange(
      () =>
        void scheduler.rebalance().then(
          (moved) => logger.info('rebalanced after a ring change', { ...moved }),
          (error: unknown) => logger.error('rebalance failed; the next sweep retries', { error: String(error) }),
        ),
    );
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
          logger.warn(
            "drain: no other scheduler can take this one's tasks (static ring or alone); they resume when it is back",
            { id },
          );
        } else if (!(await waitUntil(handedOff, config.management.drainTimeoutMs))) {
          logger.warn(
            'drain: not every task was claimed by another scheduler in time; stopping anyway (the sweep adopts the rest)',
            { id, timeoutMs: config.management.drainTimeoutMs },
          );
        } else logger.info('drain: every task of this scheduler was claimed by another', { id });
        await scope.closeAll();
      },
      stop: () => scope.closeAll(),
    };
  });
}
