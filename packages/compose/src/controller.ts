import { startController, type Controller } from '@herald/controller';
import type { TierBuild } from './build';
import type { ControllerLinks } from './links';

export interface ControllerBuild<L extends ControllerLinks> extends TierBuild<L> {
  /** Its candidate id in the controller election. */
  id: string;
}

/**
 * A controller: a candidate in the election; the leader relays the outbox
 * (where the profile has an event bus), syncs checkpoints and fires cron
 * campaigns, each firing taking room in its account's quotas like an API
 * task (docs/account-quotas.md). Stopping the scope resigns the election.
 */
export async function buildController<L extends ControllerLinks>(
  build: ControllerBuild<L>,
): Promise<{ controller: Controller; links: L }> {
  const { config, adapters, scope, id, logger, meter } = build;
  const store = await adapters.taskStore(scope);
  const coordinator = await adapters.coordinator(scope);
  const bus = adapters.eventBus === undefined ? undefined : await adapters.eventBus(scope);
  const campaigns = await adapters.campaignStore(scope);
  const accounts = await adapters.accountStore(scope);
  const links = await build.links(scope);
  const settings = { ...config.campaigns, defaultTtlMs: config.tasks.defaultTtlMs };
  const controller = await startController(
    { id, campaigns: settings },
    {
      coordinator,
      store,
      ...(bus ? { bus } : {}),
      campaigns,
      quota: { accounts, policy: config.accounts },
      ...(links.submitTask ? { submitTask: links.submitTask } : {}),
      clock: adapters.clock,
      logger,
      meter,
    },
  );
  scope.add('controller', controller, (c) => c.stop());
  return { controller, links };
}
