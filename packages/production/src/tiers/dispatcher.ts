import { join } from 'node:path';
import { ListRepository } from '@herald/audience';
import { buildFilterChain, repositoryBlacklists, startDispatcher, storeLedger } from '@herald/dispatcher';
import { openTaskStore } from '../adapters';
import { startClusterRing } from '../cluster-ring';
import { ProcessLinks } from '../links';
import { memberOf } from './member';
import { Resources } from './resources';
import type { RunningTier, TierContext } from './tier';

/** A dispatcher process: pre-processing and streaming units to executors. */
export async function startDispatcherTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const me = memberOf(config.production!, 'dispatchers', id);
  const resources = new Resources();
  return resources.starting(async () => {
    const store = resources.add('task store', await openTaskStore(config, logger), (s) => s.close());
    const lists = new ListRepository(join(config.dataDir, 'lists'));
    const ring = resources.add('membership', await startClusterRing(config, id, 'follower', logger, meter), (r) => r.close());
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const inbox = await links.bindInbox(me.endpoint);
    const dispatcher = startDispatcher({
      config,
      inbox,
      toScheduler: await links.toSchedulers(() => ring.current()),
      toExecutor: await links.toExecutors(),
      lists,
      filters: buildFilterChain({ blacklists: repositoryBlacklists(lists, config.uinLimit), ledger: storeLedger(store, lists, config.uinLimit) }),
      logger,
      meter,
    });
    // Closing the sockets ends the dispatcher (a send blocked on a peer that is gone rejects);
    // wait for its streams before the store closes.
    resources.add('dispatcher', dispatcher, (d) => {
      links.close();
      return d.done;
    });
    return { description: `dispatcher ${id} on ${me.endpoint}`, stop: () => resources.closeAll() };
  });
}
