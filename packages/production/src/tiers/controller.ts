import { startController } from '@herald/controller';
import { connectCoordinator, connectEventBus, openAccountStore, openCampaignStore, openTaskStore } from '../adapters';
import { Resources } from './resources';
import type { RunningTier, TierContext } from './tier';

/**
 * A controller process: a candidate in the controller election; the leader
 * relays the outbox, syncs checkpoints and fires cron campaigns. A campaign's
 * task is handed to no scheduler directly (the controller holds no links to
 * them): the owning scheduler's recovery sweep adopts it (docs/campaigns.md).
 */
export async function startControllerTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const resources = new Resources();
  return resources.starting(async () => {
    const store = resources.add('task store', await openTaskStore(config, logger), (s) => s.close());
    const coordinator = resources.add('coordinator', await connectCoordinator(config, logger), (c) => c.close());
    const bus = resources.add('event bus', await connectEventBus(config, id, logger), (b) => b.close());
    const campaigns = resources.add('campaign store', await openCampaignStore(config, logger), (c) => c.close());
    // A firing takes room in its account's quotas like an API task (docs/account-quotas.md).
    const accounts = resources.add('account store', await openAccountStore(config, logger), (a) => a.close());
    const settings = { ...config.campaigns, defaultTtlMs: config.tasks.defaultTtlMs };
    resources.add('controller', await startController({ id, campaigns: settings }, { coordinator, store, bus, campaigns, quota: { accounts, policy: config.accounts }, logger, meter }), (c) => c.stop());
    const stop = () => resources.closeAll();
    // Stopping resigns the election: another candidate takes over the relay where the outbox says.
    return { description: `controller ${id}`, status: () => ({}), drain: stop, stop };
  });
}
