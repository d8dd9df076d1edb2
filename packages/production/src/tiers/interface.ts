import { buildInterface, Resources, type InterfaceLinks, type TierAdapters } from '@herald/compose';
import type { TaskStore } from '@herald/core/ports';
import { ClusterDeliveryRecords } from '../cluster-delivery-records';
import { startClusterRing, type ClusterRing } from '../cluster-ring';
import { executorRecordsClient } from '../executor-records';
import { ProcessLinks } from '../links';
import { productionAdapters } from './adapter-set';
import type { RunningTier, TierContext } from './tier';

/**
 * The interface tier: the HTTP API; tasks go to the scheduler that owns them
 * on the ring. With management.tokenFile it answers recipients' delivery from
 * the executors' records, asked over their management endpoints
 * (docs/recipient-truth.md).
 */
export async function startInterface(context: TierContext): Promise<RunningTier> {
  const { config, id, logger, meter } = context;
  const scope = new Resources(logger);
  const openLinks = async (resources: Resources): Promise<InterfaceLinks & { ring: ClusterRing }> => {
    const ring = resources.add('membership', await startClusterRing(config, id, 'follower', logger, meter), (r) =>
      r.close(),
    );
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    return { toScheduler: await links.toSchedulers(() => ring.current(), { control: true }), ring };
  };
  return scope.starting(async () => {
    // GET /api/v1/cluster shows the membership this process follows.
    const views = ({ ring }: { ring: ClusterRing }) => ({ cluster: () => ring.membership() });
    const { url, links } = await buildInterface({
      config,
      adapters: interfaceAdapters(context),
      scope,
      links: openLinks,
      views,
      logger,
      meter,
    });
    const stop = () => scope.closeAll();
    // Closing the HTTP server first refuses new requests and lets the ones in progress finish, for at
    // most http.shutdownGraceMs (connections.ts in @herald/interface); a task is persisted before it
    // is handed on, so none is lost; a load balancer moves on.
    return {
      description: `interface ${id} on ${url}`,
      status: () => ({ url, membership: links.ring.status() }),
      drain: stop,
      stop,
    };
  });
}

/**
 * The production adapters, with the executors' delivery records read over
 * their management endpoints when the config gives the token to ask with;
 * those reads find a position's unit in the API's own task store.
 */
function interfaceAdapters(context: TierContext): TierAdapters {
  const base = productionAdapters(context);
  const client = executorRecordsClient(context.config, context.logger);
  if (client === undefined) return base;
  let store: Promise<TaskStore> | undefined;
  const taskStore: TierAdapters['taskStore'] = (scope) => (store ??= base.taskStore(scope));
  return {
    ...base,
    taskStore,
    deliveryRecords: async (scope) => new ClusterDeliveryRecords(client, await taskStore(scope)),
  };
}
