import { ConfigError } from '@herald/core';
import { Readiness } from './readiness';
import { startControllerTier } from './tiers/controller';
import { startDispatcherTier } from './tiers/dispatcher';
import { startExecutorTier } from './tiers/executor';
import { startInterface } from './tiers/interface';
import { startPresenceTier } from './tiers/presence';
import { startSchedulerTier } from './tiers/scheduler';
import { TIERS, type RunningTier, type TierContext, type TierName } from './tiers/tier';

const STARTERS: Record<TierName, (context: TierContext) => Promise<RunningTier>> = {
  interface: startInterface,
  scheduler: startSchedulerTier,
  dispatcher: startDispatcherTier,
  executor: startExecutorTier,
  presence: startPresenceTier,
  controller: startControllerTier,
};

/**
 * Starts one tier of the production profile in this process. Once it has
 * started, it warms what its first tasks would otherwise wait for (the
 * adapters registered their steps while opening): its status says
 * `ready: false` and what it waits for until that is done (docs/operations.md,
 * "Readiness"). A failed warm-up step keeps it not ready and is retried.
 */
export async function startTier(tier: string, context: TierContext): Promise<RunningTier> {
  if (context.config.profile !== 'production')
    throw new ConfigError(
      'profile',
      `herald start needs the production profile (the embedded one runs with herald dev)`,
    );
  if (!(TIERS as readonly string[]).includes(tier))
    throw new ConfigError('<tier>', `must be one of ${TIERS.join(', ')} (got ${JSON.stringify(tier)})`);
  const readiness = context.readiness ?? new Readiness({ logger: context.logger });
  const running = await STARTERS[tier as TierName]({ ...context, readiness });
  void readiness.start();
  return withReadiness(running, readiness);
}

/** The running tier, its status with the readiness, and the warm-up stopped when it stops or drains. */
function withReadiness(running: RunningTier, readiness: Readiness): RunningTier {
  // Everything the tier gives (its channels, its delivery records, ...), with these three wrapped.
  return {
    ...running,
    status: () => ({ ...readiness.status(), ...running.status() }),
    drain: () => (readiness.stop(), running.drain()),
    stop: () => (readiness.stop(), running.stop()),
  };
}
