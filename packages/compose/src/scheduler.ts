import type { TaskStore } from '@herald/core/ports';
import { coordinatorRecorder, startScheduler, type Scheduler } from '@herald/scheduler';
import type { TierBuild } from './build';
import type { SchedulerLinks } from './links';

export interface SchedulerBuild<L extends SchedulerLinks> extends TierBuild<L> {
  /** This scheduler's id (production: the process id). Default: config.scheduler.id. */
  id?: string;
}

/**
 * A scheduler: the task store, unit progress recorded in the coordinator
 * first where the profile says so, and the ring it owns by. Stopping the
 * scope closes its links, then waits for it to end.
 */
export async function buildScheduler<L extends SchedulerLinks>(
  build: SchedulerBuild<L>,
): Promise<{ scheduler: Scheduler; store: TaskStore; links: L }> {
  const { config, adapters, scope, logger, meter } = build;
  const store = await adapters.taskStore(scope);
  const coordinator = adapters.progressInCoordinator ? await adapters.coordinator(scope) : undefined;
  const links = await build.links(scope);
  const { ring } = links;
  const scheduler = scope.add(
    'scheduler',
    await startScheduler({
      config: build.id === undefined ? config : { ...config, scheduler: { ...config.scheduler, id: build.id } },
      store,
      inbox: links.inbox,
      ...(links.controlInbox ? { controlInbox: links.controlInbox } : {}),
      toDispatcher: links.toDispatcher,
      ...(ring ? { ring: () => ring.current(), mayAdopt: () => ring.isCurrent() } : {}),
      ...(coordinator ? { progress: coordinatorRecorder(store, coordinator) } : {}),
      clock: adapters.clock,
      logger,
      meter,
    }),
    (s) => {
      links.close(); // first: a send blocked on a dispatcher that is gone would keep stop() waiting
      return s.stop();
    },
  );
  return { scheduler, store, links };
}
