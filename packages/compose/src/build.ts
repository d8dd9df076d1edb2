import type { HeraldConfig } from '@herald/core/config';
import type { Logger } from '@herald/core/ports';
import type { PromMeter } from '@herald/metrics';
import type { Open, TierAdapters } from './adapters';
import type { Resources } from './resources';

/**
 * What every tier builder takes: the compiled config, the profile's
 * adapters, the scope that owns what the tier opens (closed newest first by
 * `scope.closeAll()`), and the tier's links.
 */
export interface TierBuild<L> {
  config: HeraldConfig;
  adapters: TierAdapters;
  scope: Resources;
  links: Open<L>;
  logger: Logger;
  meter: PromMeter;
}

/** Opens the frequency counter when frequency control is on (docs/frequency.md); undefined otherwise. */
export async function frequencyCounterOf({
  config,
  adapters,
  scope,
}: Pick<TierBuild<unknown>, 'config' | 'adapters' | 'scope'>) {
  return config.frequency.enabled ? adapters.frequencyCounter(scope) : undefined;
}
