import { join } from 'node:path';
import { systemClock, TOPICS, TypedArrayBitmap, type ConsumedEvent } from '@herald/core';
import { FileDeliverySink, LoginDelivery, startExecutor, TaskCache } from '@herald/executor';
import { LevelOfflineStore } from '@herald/store-level';
import { connectEventBus, openTaskStore } from '../adapters';
import { ProcessLinks } from '../links';
import { memberOf } from './member';
import { Resources } from './resources';
import type { RunningTier, TierContext } from './tier';

/** A presence event on the presence topic: a user logged in (online) or out. */
interface PresenceValue {
  uin: number;
  online: boolean;
}

/**
 * An executor process. Until the shared-memory bitmap and the presence agent
 * land (presence issue), each executor follows the presence topic itself (its
 * own consumer group) into a bitmap of its own, and delivers its own offline
 * lists (LevelDB under <dataDir>/offline-<id>) when a user logs in. Deliveries
 * go to the file sink under <dataDir>/deliveries/<id>; every batch is
 * reported on the reports topic.
 */
export async function startExecutorTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const me = memberOf(config.production!, 'executors', id);
  const resources = new Resources();
  return resources.starting(async () => {
    const store = resources.add('task store', await openTaskStore(config, logger), (s) => s.close());
    const bus = resources.add('event bus', await connectEventBus(config, id, logger), (b) => b.close());
    const offline = resources.add('offline store', await LevelOfflineStore.open(join(config.dataDir, `offline-${id}`), { rangeBits: config.offline.rangeBits }), (o) => o.close());
    const gateway = resources.add('delivery sink', new FileDeliverySink(join(config.dataDir, 'deliveries', id)), (g) => g.close());
    const online = new TypedArrayBitmap(config.uinLimit);
    const tasks = new TaskCache(store);
    const logins = new LoginDelivery(offline, gateway, tasks, systemClock);
    resources.add(
      'presence subscription',
      await bus.subscribe(
        TOPICS.presence,
        `executor-${id}`,
        async (events: ConsumedEvent[]) => {
          for (const event of events) {
            const { uin, online: isOnline } = event.value as PresenceValue;
            if (!Number.isInteger(uin) || uin < 0 || uin >= config.uinLimit) {
              logger.warn('presence event with a bad uin skipped', { position: event.position });
              continue;
            }
            online.setOnline(uin, isOnline);
            if (isOnline) await logins.deliver(uin);
          }
        },
        { fromBeginning: true },
      ),
      (s) => s.close(),
    );
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const inbox = await links.bindInbox(me.endpoint);
    const executor = startExecutor({ id, inbox, toScheduler: await links.toSchedulers(), tasks, online, gateway, offline, reports: bus, logger, meter });
    // Close every socket first: a send blocked on a peer that is gone would keep `done` from settling.
    resources.add('executor', executor, (e) => {
      links.close();
      return e.done;
    });
    return { description: `executor ${id} on ${me.endpoint}`, stop: () => resources.closeAll() };
  });
}
