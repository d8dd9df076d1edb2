import type { FrequencyCounter, TaskStore } from '@herald/core/ports';
import type { HeraldConfig } from '@herald/core/config';
import {
  buildFilterChain,
  filterChainSources,
  startDispatcher,
  storeLocalTime,
  type ChainSources,
  type Dispatcher,
} from '@herald/dispatcher';
import type { FilterAudiences, TierAdapters } from './adapters';
import { frequencyCounterOf, type TierBuild } from './build';
import type { DispatcherLinks } from './links';

/**
 * The sources of the filter chain (docs/architecture.md, "The filter chain"):
 * one definition for the dispatcher's pre-processing and the API's dry runs,
 * so a dry run filters with exactly what a send will.
 */
export function chainSourcesOf(
  config: HeraldConfig,
  adapters: TierAdapters,
  store: TaskStore,
  audiences: FilterAudiences,
  counter: FrequencyCounter | undefined,
): ChainSources {
  return filterChainSources({
    config,
    store,
    lists: adapters.lists,
    followers: audiences.followers,
    attributes: audiences.attributes,
    clock: adapters.clock,
    ...(audiences.followerCopies === undefined ? {} : { followerCopies: audiences.followerCopies }),
    ...(counter === undefined ? {} : { frequencyCounter: counter }),
  });
}

/**
 * A dispatcher: pre-processing through the filter chain, then streaming units
 * to executors. Stopping the scope closes its links (a send blocked on a peer
 * that is gone rejects), then waits for its streams to end.
 */
export async function buildDispatcher<L extends DispatcherLinks>(
  build: TierBuild<L>,
): Promise<{ dispatcher: Dispatcher; links: L }> {
  const { config, adapters, scope, logger, meter } = build;
  const store = await adapters.taskStore(scope);
  // The frequency filter reads the counts every executor writes (docs/frequency.md).
  const counter = await frequencyCounterOf(build);
  // The follower check of followers-only accounts and the targeting condition of targeted tasks read the audience tables.
  const audiences = await adapters.filterAudiences(scope);
  const links = await build.links(scope);
  const sources = chainSourcesOf(config, adapters, store, audiences, counter);
  const dispatcher = startDispatcher({
    config,
    inbox: links.inbox,
    toScheduler: links.toScheduler,
    toExecutor: links.toExecutor,
    toRealtimeExecutor: links.toRealtimeExecutor,
    lists: adapters.lists,
    filters: buildFilterChain(sources),
    ...(sources.rollouts === undefined ? {} : { rollouts: sources.rollouts }),
    // Local-time tasks are grouped by their recipients' zones, planned by the clock that judges tasks.
    localTime: storeLocalTime(store, audiences.attributes, adapters.clock),
    // Host loads are stamped by the system clock on arrival, whatever clock judges the tasks.
    logger,
    meter,
  });
  scope.add('dispatcher', dispatcher, (d) => {
    links.close();
    return d.done;
  });
  return { dispatcher, links };
}
