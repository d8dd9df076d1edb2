import { ConfigError } from '@herald/core';
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

/** Starts one tier of the production profile in this process. */
export function startTier(tier: string, context: TierContext): Promise<RunningTier> {
  if (context.config.profile !== 'production')
    throw new ConfigError(
      'profile',
      `herald start needs the production profile (the embedded one runs with herald dev)`,
    );
  if (!(TIERS as readonly string[]).includes(tier))
    throw new ConfigError('<tier>', `must be one of ${TIERS.join(', ')} (got ${JSON.stringify(tier)})`);
  return STARTERS[tier as TierName](context);
}
