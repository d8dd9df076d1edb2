import { buildDispatcher, Resources, type DispatcherLinks } from '@herald/compose';
import { startClusterRing, type ClusterRing } from '../cluster-ring';
import { QUIET_MS, waitUntil, watchInbox, type WatchedInbox } from '../drain';
import { ProcessLinks } from '../links';
import { productionAdapters } from './adapter-set';
import { memberOf } from './member';
import type { RunningTier, TierContext } from './tier';

/** A dispatcher process: pre-processing and streaming units to executors. */
export async function startDispatcherTier(context: TierContext): Promise<RunningTier> {
  const { config, id, logger, meter } = context;
  const me = memberOf(config.production!, 'dispatchers', id);
  const scope = new Resources(logger);
  const openLinks = async (
    resources: Resources,
  ): Promise<DispatcherLinks & { ring: ClusterRing; watched: WatchedInbox }> => {
    const ring = resources.add('membership', await startClusterRing(config, id, 'follower', logger, meter), (r) =>
      r.close(),
    );
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const watched = watchInbox(await links.bindInbox(me.endpoint));
    return {
      inbox: watched.inbox,
      toScheduler: await links.toSchedulers(() => ring.current(), { control: true }),
      toExecutor: await links.toExecutors(),
      toRealtimeExecutor: await links.toRealtimeExecutors(),
      ring,
      watched,
      close: () => links.close(),
    };
  };
  return scope.starting(async () => {
    const { dispatcher, links } = await buildDispatcher({
      config,
      adapters: productionAdapters(context),
      scope,
      links: openLinks,
      logger,
      meter,
    });
    const { ring, watched } = links;
    return {
      description: `dispatcher ${id} on ${me.endpoint}`,
      status: () => ({
        busy: dispatcher.busy(),
        received: watched.received,
        membership: ring.status(),
        hosts: dispatcher.loads().map(({ report, ageMs }) => ({ ...report, ageMs })),
      }),
      async drain() {
        // Finish what it was given: every stream to its unit's end and any unit.run still
        // arriving, until nothing runs and the inbox has been quiet. A unit.run that lands
        // after the stop is run again by its scheduler when the unit stalls (scheduler.unitStallMs).
        const idle = () => dispatcher.busy() === 0 && watched.idleMs() >= QUIET_MS;
        if (!(await waitUntil(idle, config.management.drainTimeoutMs)))
          logger.warn(
            'drain: streams still running at the timeout; stopping anyway (they resume from their checkpoints)',
            { id, busy: dispatcher.busy() },
          );
        await scope.closeAll();
      },
      stop: () => scope.closeAll(),
    };
  });
}
