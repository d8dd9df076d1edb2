import { join } from 'node:path';
import { ListRepository } from '@herald/audience';
import { buildFilterChain, filterChainSources, startDispatcher } from '@herald/dispatcher';
import { openFrequencyCounter, openTaskStore } from '../adapters';
import { openFilterSources } from '../audience-adapters';
import { startClusterRing } from '../cluster-ring';
import { QUIET_MS, waitUntil, watchInbox } from '../drain';
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
    // The frequency filter reads the counts every executor writes (docs/frequency.md).
    const counter = config.frequency.enabled ? resources.add('frequency counter', await openFrequencyCounter(config, logger), (c) => c.close()) : undefined;
    // The follower check of followers-only accounts and the targeting condition of targeted tasks read the audience tables.
    const audiences = await openFilterSources(config, id, logger, resources);
    const ring = resources.add('membership', await startClusterRing(config, id, 'follower', logger, meter), (r) => r.close());
    const links = resources.add('links', await ProcessLinks.open(config, id, logger, meter), (l) => l.close());
    const watched = watchInbox(await links.bindInbox(me.endpoint));
    const dispatcher = startDispatcher({
      config,
      inbox: watched.inbox,
      toScheduler: await links.toSchedulers(() => ring.current(), { control: true }),
      toExecutor: await links.toExecutors(),
      toRealtimeExecutor: await links.toRealtimeExecutors(),
      lists,
      filters: buildFilterChain(filterChainSources({ config, store, lists, ...audiences, ...(counter === undefined ? {} : { frequencyCounter: counter }) })),
      logger,
      meter,
    });
    // Closing the sockets ends the dispatcher (a send blocked on a peer that is gone rejects);
    // wait for its streams before the store closes.
    resources.add('dispatcher', dispatcher, (d) => {
      links.close();
      return d.done;
    });
    return {
      description: `dispatcher ${id} on ${me.endpoint}`,
      status: () => ({ busy: dispatcher.busy(), received: watched.received, membership: ring.status(), hosts: dispatcher.loads().map(({ report, ageMs }) => ({ ...report, ageMs })) }),
      async drain() {
        // Finish what it was given: every stream to its unit's end and any unit.run still
        // arriving, until nothing runs and the inbox has been quiet. A unit.run that lands
        // after the stop is run again by its scheduler when the unit stalls (scheduler.unitStallMs).
        const idle = () => dispatcher.busy() === 0 && watched.idleMs() >= QUIET_MS;
        if (!(await waitUntil(idle, config.management.drainTimeoutMs))) logger.warn('drain: streams still running at the timeout; stopping anyway (they resume from their checkpoints)', { id, busy: dispatcher.busy() });
        await resources.closeAll();
      },
      stop: () => resources.closeAll(),
    };
  });
}
