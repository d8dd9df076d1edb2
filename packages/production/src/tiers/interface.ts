import { join } from 'node:path';
import { systemClock } from '@herald/core';
import { ListRepository } from '@herald/audience';
import { accountBlacklistId, GLOBAL_BLACKLIST_ID } from '@herald/dispatcher';
import { createApiServer } from '@herald/interface';
import { openTaskStore } from '../adapters';
import { ProcessLinks } from '../links';
import type { RunningTier, TierContext } from './tier';

/** The interface tier: the HTTP API; tasks go to the scheduler that owns them on the ring. */
export async function startInterface({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const store = await openTaskStore(config);
  const links = await ProcessLinks.open(config, id, logger, meter);
  const api = createApiServer({
    config,
    store,
    lists: new ListRepository(join(config.dataDir, 'lists')),
    toScheduler: await links.toSchedulers(),
    clock: systemClock,
    logger,
    blacklistIds: { global: GLOBAL_BLACKLIST_ID, forAccount: accountBlacklistId },
    metrics: () => meter.exposition(),
  });
  const url = await api.listen({ host: config.http.host, port: config.http.port });
  return {
    description: `interface ${id} on ${url}`,
    async stop() {
      await api.close();
      links.close();
      await store.close();
    },
  };
}
