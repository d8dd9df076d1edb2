import { buildController, Resources } from '@herald/compose';
import { productionAdapters } from './adapter-set';
import type { RunningTier, TierContext } from './tier';

/**
 * A controller process: a candidate in the controller election; the leader
 * relays the outbox, syncs checkpoints and fires cron campaigns. A campaign's
 * task is handed to no scheduler directly (the controller holds no links to
 * them): the owning scheduler's recovery sweep adopts it (docs/campaigns.md).
 */
export async function startControllerTier(context: TierContext): Promise<RunningTier> {
  const { config, id, logger, meter } = context;
  const scope = new Resources(logger);
  return scope.starting(async () => {
    await buildController({
      config,
      id,
      adapters: productionAdapters(context),
      scope,
      links: async () => ({}),
      logger,
      meter,
    });
    const stop = () => scope.closeAll();
    // Stopping resigns the election: another candidate takes over the relay where the outbox says.
    return { description: `controller ${id}`, status: () => ({}), drain: stop, stop };
  });
}
