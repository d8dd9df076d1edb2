import { join } from 'node:path';
import { systemClock } from '@herald/core/ports';
import { ListRepository } from '@herald/audience';
import { accountBlacklistId, createRecipientPreview, filterChainSources, GLOBAL_BLACKLIST_ID } from '@herald/dispatcher';
import { createApiServer } from '@herald/interface';
import { openAccessStore, openAccountStore, openCampaignStore, openFrequencyCounter, openTaskStore } from '../adapters';
import { openAudienceSources } from '../audience-adapters';
import { startClusterRing } from '../cluster-ring';
import { ProcessLinks } from '../links';
import { Resources } from './resources';
import type { RunningTier, TierContext } from './tier';

/** The interface tier: the HTTP API; tasks go to the scheduler that owns them on the ring. */
export async function startInterface({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const resources = new Resources();
  return resources.starting(async () => {
    const store = resources.add('task store', await openTaskStore(config, logger), (s) => s.close());
    const access = resources.add('access store', await openAccessStore(config, logger), (s) => s.close());
    const accounts = resources.add('account store', await openAccountStore(config, logger), (s) => s.close());
    const campaigns = resources.add('campaign store', await openCampaignStore(config, logger), (s) => s.close());
    const ring = resources.add('membership', await startClusterRing(config, id, 'follower', logger, meter), (r) => r.close());
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const audiences = await openAudienceSources(config, id, logger, meter, resources);
    const lists = new ListRepository(join(config.dataDir, 'lists'));
    // Dry runs filter with what the dispatchers filter with; frequency counts are read, never written.
    const counter = config.frequency.enabled ? resources.add('frequency counter', await openFrequencyCounter(config, logger), (c) => c.close()) : undefined;
    const sources = filterChainSources({ config, store, lists, ...audiences, ...(counter === undefined ? {} : { frequencyCounter: counter }) });
    const api = createApiServer({
      config,
      store,
      access,
      accounts,
      campaigns,
      lists,
      audiences,
      previewRecipients: createRecipientPreview({ config, lists, sources }),
      toScheduler: await links.toSchedulers(() => ring.current(), { control: true }),
      clock: systemClock,
      logger,
      blacklistIds: { global: GLOBAL_BLACKLIST_ID, forAccount: accountBlacklistId },
      meter,
      metrics: () => meter.exposition(),
      cluster: () => ring.membership(),
    });
    resources.add('http server', api, (a) => a.close());
    const url = await api.listen({ host: config.http.host, port: config.http.port });
    const stop = () => resources.closeAll();
    // Closing the HTTP server first refuses new requests and lets the ones in progress finish, for at
    // most http.shutdownGraceMs (connections.ts in @herald/interface); a task is persisted before it
    // is handed on, so none is lost; a load balancer moves on.
    return { description: `interface ${id} on ${url}`, status: () => ({ url, membership: ring.status() }), drain: stop, stop };
  });
}
