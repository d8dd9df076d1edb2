import { accountBlacklistId, createRecipientPreview, GLOBAL_BLACKLIST_ID } from '@herald/dispatcher';
import { createApiServer, type ApiDeps } from '@herald/interface';
import type { TierBuild } from './build';
import { frequencyCounterOf } from './build';
import { chainSourcesOf } from './dispatcher';
import type { InterfaceLinks } from './links';

export interface InterfaceBuild<L extends InterfaceLinks> extends TierBuild<L> {
  /** What the API shows of the rest of the cluster, given the opened links: the membership (production) or the dispatcher's host loads (embedded). */
  views?: (links: L) => Pick<ApiDeps, 'cluster' | 'hostLoads' | 'channels'>;
}

/**
 * The HTTP API, listening on http.host:http.port. Stopping the scope closes
 * the server first: new requests are refused and those in progress finish,
 * for at most http.shutdownGraceMs.
 */
export async function buildInterface<L extends InterfaceLinks>(
  build: InterfaceBuild<L>,
): Promise<{ url: string; links: L }> {
  const { config, adapters, scope, logger, meter } = build;
  const store = await adapters.taskStore(scope);
  const access = await adapters.accessStore(scope);
  const accounts = await adapters.accountStore(scope);
  const campaigns = await adapters.campaignStore(scope);
  const links = await build.links(scope);
  const audiences = await adapters.apiAudiences(scope);
  const deliveryRecords = adapters.deliveryRecords === undefined ? undefined : await adapters.deliveryRecords(scope);
  const devices = adapters.deviceRegistry === undefined ? undefined : await adapters.deviceRegistry(scope);
  // Dry runs filter with what the dispatchers filter with; frequency counts are read, never written.
  const counter = await frequencyCounterOf(build);
  const sources = chainSourcesOf(config, adapters, store, audiences, counter);
  const api = createApiServer({
    config,
    store,
    access,
    accounts,
    campaigns,
    lists: adapters.lists,
    ...(deliveryRecords ? { deliveryRecords } : {}),
    ...(devices ? { devices } : {}),
    audiences,
    previewRecipients: createRecipientPreview({ config, lists: adapters.lists, sources, clock: adapters.clock }),
    toScheduler: links.toScheduler,
    clock: adapters.clock,
    logger,
    blacklistIds: { global: GLOBAL_BLACKLIST_ID, forAccount: accountBlacklistId },
    meter,
    metrics: () => meter.exposition(),
    ...build.views?.(links),
  });
  scope.add('http server', api, (a) => a.close());
  const url = await api.listen({ host: config.http.host, port: config.http.port });
  return { url, links };
}
