import { buildExecutor, Resources, type ExecutorLinks } from '@herald/compose';
import type { DeliveryGateway, DeliveryRecordLog } from '@herald/core/ports';
import { channelControlOf } from '@herald/executor';
import { shareChannelBudget } from '../channel-budget';
import { startChannelRelay } from '../channel-relay';
import { startClusterRing, type ClusterRing } from '../cluster-ring';
import { QUIET_MS, waitUntil, watchInbox, type WatchedInbox } from '../drain';
import { ProcessLinks } from '../links';
import { executorAdapters, executorDeliveryRecords, productionAdapters } from './adapter-set';
import { memberOf } from './member';
import type { RunningTier, TierContext } from './tier';

/**
 * An executor process. Who is online comes from the host's shared bitmap,
 * mapped read-only (the host's presence agent writes it); user.logins from
 * that agent arrive in the inbox with the batches, and the executor walks
 * those users' offline lists (LevelDB under <dataDir>/offline-<id>). With
 * frequency.enabled it counts what it delivers in the cluster's shared
 * frequency counter (MySQL), and checks it again at login. Template tasks'
 * recipients' attributes are read from MySQL's user_attributes, one query per
 * batch.
 * Deliveries go to the file sink under <dataDir>/deliveries/<id>; every batch
 * is reported on the reports topic. Every load.reportIntervalMs it reports its
 * host's load (/proc) and its free sender slots to every dispatcher. The batches it confirmed are kept in
 * LevelDB under <dataDir>/confirmed-<id>, so after a restart it does not
 * deliver them again when their unit runs from an older checkpoint. A paced
 * channel sends at this executor's share of the channel's budget: the limit
 * over the live executors; a throttle it takes is relayed to the other
 * executors on their channelEndpoint, and theirs to it (docs/delivery.md,
 * "One budget per channel"). Each confirmed batch's online positions and each
 * login outcome are recorded under <dataDir>/delivery-records-<id>, which its
 * management endpoint serves to the interfaces (docs/recipient-truth.md).
 */
export async function startExecutorTier(context: TierContext): Promise<RunningTier> {
  const { config, id, logger, meter } = context;
  const me = memberOf(config.production!, 'executors', id);
  const scope = new Resources(logger);
  const openLinks = async (
    resources: Resources,
  ): Promise<
    ExecutorLinks & {
      ring: ClusterRing;
      watched: WatchedInbox;
      realtime: WatchedInbox | undefined;
      process: ProcessLinks;
    }
  > => {
    const ring = resources.add('membership', await startClusterRing(config, id, 'follower', logger, meter), (r) =>
      r.close(),
    );
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const watched = watchInbox(await links.bindInbox(me.endpoint));
    // Real-time tasks' batches, where the topology gives this executor a second inbox for them.
    const realtime =
      me.realtimeEndpoint === undefined
        ? undefined
        : watchInbox(await links.bindInbox(me.realtimeEndpoint, `${id}.realtime`));
    return {
      inbox: watched.inbox,
      ...(realtime ? { realtimeInbox: realtime.inbox } : {}),
      toScheduler: await links.toSchedulers(() => ring.current()),
      // Each report goes to each dispatcher on its own, waiting at most one report interval.
      toDispatchers: await links.toEveryDispatcher(config.load.reportIntervalMs),
      ring,
      watched,
      realtime,
      process: links,
      close: () => links.close(),
    };
  };
  return scope.starting(async () => {
    const adapters = executorAdapters(context);
    let gateway: DeliveryGateway | undefined;
    let records: DeliveryRecordLog | undefined;
    const openRecords = executorDeliveryRecords(context);
    const build = {
      config,
      id,
      adapters: {
        ...productionAdapters(context),
        deliveryRecords: async (s: Resources) => (records = await openRecords(s)),
      },
      // The channel is kept to this executor's share of its budget once the membership is up (below).
      executor: { ...adapters, gateway: async (s: Resources) => (gateway = await adapters.gateway(s)) },
      scope,
      links: openLinks,
      maxLoginsPending: config.executor.maxLoginsPending,
      logger,
      meter,
    };
    const { links } = await buildExecutor(build);
    const { ring, watched, realtime } = links;
    const relay = await startChannelRelay(config, id, gateway!, links.process, logger);
    scope.add('channel relay', relay, (r) => r.stop());
    const budget = shareChannelBudget(config, gateway!, ring, logger, relay);
    scope.add('channel budget share', budget, (b) => b.stop());
    return {
      description: `executor ${id} on ${me.endpoint}`,
      channels: channelControlOf(gateway!),
      ...(records ? { deliveryRecords: records } : {}),
      status: () => ({
        received: watched.received + (realtime?.received ?? 0),
        idleMs: Math.min(watched.idleMs(), realtime?.idleMs() ?? Infinity),
        membership: ring.status(),
      }),
      async drain() {
        // Batches are handled one at a time as they arrive, so a quiet inbox means none is in hand.
        // Batches sent after the stop wait in their dispatchers' queues for the restart, or are
        // streamed again from the unit's checkpoint when it stalls (scheduler.unitStallMs).
        const quiet = () => watched.idleMs() >= QUIET_MS && (realtime === undefined || realtime.idleMs() >= QUIET_MS);
        if (!(await waitUntil(quiet, config.management.drainTimeoutMs)))
          logger.warn('drain: batches still arriving at the timeout; stopping anyway', { id });
        await scope.closeAll();
      },
      stop: () => scope.closeAll(),
    };
  });
}
