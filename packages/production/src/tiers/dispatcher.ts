import { join } from 'node:path';
import { ListRepository } from '@herald/audience';
import { buildFilterChain, repositoryBlacklists, startDispatcher, storeLedger } from '@herald/dispatcher';
import { openTaskStore } from '../adapters';
import { ProcessLinks } from '../links';
import { memberOf } from './member';
import type { RunningTier, TierContext } from './tier';

/** A dispatcher process: pre-processing and streaming units to executors. */
export async function startDispatcherTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const me = memberOf(config.production!, 'dispatchers', id);
  const store = await openTaskStore(config);
  const lists = new ListRepository(join(config.dataDir, 'lists'));
  const links = await ProcessLinks.open(config, id, logger, meter);
  const inbox = await links.bindInbox(me.endpoint);
  const dispatcher = startDispatcher({
    config,
    inbox,
    toScheduler: await links.toSchedulers(),
    toExecutor: await links.toExecutors(),
    lists,
    filters: buildFilterChain({ blacklists: repositoryBlacklists(lists, config.uinLimit), ledger: storeLedger(store, lists, config.uinLimit) }),
    logger,
    meter,
  });
  return {
    description: `dispatcher ${id} on ${me.endpoint}`,
    async stop() {
      links.close();
      await dispatcher.done;
      await store.close();
    },
  };
}
