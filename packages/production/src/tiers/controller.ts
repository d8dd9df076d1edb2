import { startController } from '@herald/controller';
import { connectCoordinator, connectEventBus, openTaskStore } from '../adapters';
import type { RunningTier, TierContext } from './tier';

/** A controller process: a candidate in the controller election; the leader relays the outbox and syncs checkpoints. */
export async function startControllerTier({ config, id, logger, meter }: TierContext): Promise<RunningTier> {
  const store = await openTaskStore(config);
  const coordinator = await connectCoordinator(config, logger);
  const bus = await connectEventBus(config, id, logger);
  const controller = await startController({ id }, { coordinator, store, bus, logger, meter });
  return {
    description: `controller ${id}`,
    async stop() {
      await controller.stop();
      await bus.close();
      await coordinator.close();
      await store.close();
    },
  };
}
