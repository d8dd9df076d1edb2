import { join } from 'node:path';
import { ConfigError } from '@herald/core';
import { systemClock, type ConfirmedBatchLog, type Logger } from '@herald/core/ports';
import type { ProductionConfig } from '@herald/core/config';
import { createDeliveryGateway, createHostSampler, createLoginQueue, createUnitSlots, LoginDelivery, Personaliser, readProcCounters, speedShareOf, startExecutor, startLoadReporter, TaskCache, watchOfflineStoreSize } from '@herald/executor';
import { SharedBitmapError, SharedOnlineBitmap } from '@herald/shared-bitmap';
import { LevelConfirmedBatchLog, LevelOfflineStore } from '@herald/store-level';
import { connectEventBus, openFrequencyCounter, openTaskStore, openUserAttributeLookup } from '../adapters';
import { startClusterRing } from '../cluster-ring';
import { QUIET_MS, waitUntil, watchInbox } from '../drain';
import { ProcessLinks } from '../links';
import { memberOf } from './member';
import { Resources } from './resources';
import type { RunningTier, TierContext } from './tier';

/** Users waiting for their offline lists to be walked, at most (more wait for their next login). */
const MAX_LOGINS_PENDING = 100_000;

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
 * deliver them again when their unit runs from an older checkpoint.
 */
export async function startExecutorTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const me = memberOf(config.production!, 'executors', id);
  const resources = new Resources();
  return resources.starting(async () => {
    const store = resources.add('task store', await openTaskStore(config, logger), (s) => s.close());
    const bus = resources.add('event bus', await connectEventBus(config, id, logger), (b) => b.close());
    const offline = resources.add('offline store', await LevelOfflineStore.open(join(config.dataDir, `offline-${id}`), { rangeBits: config.offline.rangeBits }), (o) => o.close());
    resources.add('offline size gauge', watchOfflineStoreSize(offline, meter, { logger }), (w) => w.stop());
    const confirmed = resources.add('confirmed batches', await LevelConfirmedBatchLog.open(join(config.dataDir, `confirmed-${id}`)), (c) => c.close());
    resources.add('confirmed batches pruning', pruneConfirmedBatches(confirmed, logger), (p) => p.stop());
    const gateway = resources.add('delivery gateway', createDeliveryGateway(config.delivery, join(config.dataDir, 'deliveries', id)), (g) => g.close());
    const online = resources.add('online bitmap', await openHostBitmap(config.production!, id, config.uinLimit, config.executor.bitmapWaitMs, logger), (b) => b.close());
    const tasks = new TaskCache(store);
    // Counts what this executor delivers, and checks the budget again at login (docs/frequency.md).
    const frequency = config.frequency.enabled
      ? { policy: config.frequency.policy, counter: resources.add('frequency counter', await openFrequencyCounter(config, logger), (c) => c.close()) }
      : undefined;
    // Template tasks' recipients' attributes, from the targeting store's table (docs/delivery.md).
    const personaliser = new Personaliser(resources.add('user attributes', await openUserAttributeLookup(config, logger), (a) => a.close()), logger);
    const logins = createLoginQueue(new LoginDelivery(offline, gateway, tasks, systemClock, frequency, personaliser), { maxPending: MAX_LOGINS_PENDING, labels: { executor: id }, logger, meter });
    const ring = resources.add('membership', await startClusterRing(config, id, 'follower', logger, meter), (r) => r.close());
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    // The units its inboxes carry: the free sender slots its load reports tell the dispatchers.
    const slots = createUnitSlots(config.load.senderSlots);
    const watched = watchInbox(slots.watch(await links.bindInbox(me.endpoint)));
    // Real-time tasks' batches, where the topology gives this executor a second inbox for them.
    const realtime = me.realtimeEndpoint === undefined ? undefined : watchInbox(slots.watch(await links.bindInbox(me.realtimeEndpoint, `${id}.realtime`)));
    const executor = startExecutor({ id, inbox: watched.inbox, ...(realtime ? { realtimeInbox: realtime.inbox } : {}), toScheduler: await links.toSchedulers(() => ring.current()), tasks, online, gateway, offline, confirmed, logins, reports: bus, ...(frequency ? { frequency } : {}), personaliser, pacing: { speedOf: speedShareOf(store, id, systemClock) }, logger, meter });
    // Close every socket first: a send blocked on a peer that is gone would keep `done` from settling.
    resources.add('executor', executor, (e) => {
      links.close();
      return e.done;
    });
    // The host manager's part (docs/scheduling.md "Load-aware dispatch"): this host's load to every dispatcher each load.reportIntervalMs.
    const toDispatchers = await links.toEveryDispatcher(config.load.reportIntervalMs);
    resources.add('load reports', startLoadReporter({ executorId: id, config: config.load, sample: createHostSampler(() => readProcCounters()), freeSlots: slots.free, send: (m) => toDispatchers.send(m), logger }), (r) => r.stop());
    return {
      description: `executor ${id} on ${me.endpoint}`,
      status: () => ({ received: watched.received + (realtime?.received ?? 0), idleMs: Math.min(watched.idleMs(), realtime?.idleMs() ?? Infinity), membership: ring.status() }),
      async drain() {
        // Batches are handled one at a time as they arrive, so a quiet inbox means none is in hand.
        // Batches sent after the stop wait in their dispatchers' queues for the restart, or are
        // streamed again from the unit's checkpoint when it stalls (scheduler.unitStallMs).
        const quiet = () => watched.idleMs() >= QUIET_MS && (realtime === undefined || realtime.idleMs() >= QUIET_MS);
        if (!(await waitUntil(quiet, config.management.drainTimeoutMs))) logger.warn('drain: batches still arriving at the timeout; stopping anyway', { id });
        await resources.closeAll();
      },
      stop: () => resources.closeAll(),
    };
  });
}

/** How often the confirmed-batch log forgets the records of expired tasks. */
const PRUNE_CONFIRMED_MS = 3_600_000;

/** Prunes the records of expired tasks now and then every PRUNE_CONFIRMED_MS (a failed prune is retried at the next). */
function pruneConfirmedBatches(log: ConfirmedBatchLog, logger: Logger): { stop(): void } {
  const prune = () =>
    log.prune(Date.now()).then(
      (dropped) => dropped > 0 && logger.info('confirmed batches of expired tasks pruned', { dropped }),
      (error: unknown) => logger.warn('pruning confirmed batches failed', { error: String(error) }),
    );
  void prune();
  const timer = setInterval(() => void prune(), PRUNE_CONFIRMED_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** Maps the bitmap of this executor's host read-only, waiting for the host's presence agent to create it. */
async function openHostBitmap(production: ProductionConfig, id: string, uinLimit: number, waitMs: number, logger: Logger) {
  const index = production.topology.presence.findIndex((p) => p.executors.includes(id));
  const agent = production.topology.presence[index]!;
  const deadline = Date.now() + waitMs;
  for (let waited = false; ; waited = true) {
    try {
      return SharedOnlineBitmap.openReader(agent.bitmapFile, uinLimit);
    } catch (error) {
      const missing = error instanceof SharedBitmapError && error.reason === 'NOT_FOUND';
      if (!missing) throw new ConfigError(`topology.presence[${index}].bitmapFile`, `cannot map ${agent.bitmapFile}: ${(error as Error).message}`);
      if (Date.now() >= deadline) throw new ConfigError(`topology.presence[${index}].bitmapFile`, `${agent.bitmapFile} does not exist after ${waitMs} ms (executor.bitmapWaitMs): start presence agent ${agent.id} on this host`);
      if (!waited) logger.info('waiting for the presence agent to create the online bitmap', { agent: agent.id, bitmapFile: agent.bitmapFile });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
