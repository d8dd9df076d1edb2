import { ConfigError } from '../errors';
import { compileFrequencyPolicy } from '../frequency/policy';
import type { FrequencyConfig, HeraldOptions } from './options';
import { section } from './section';

/**
 * The per-user daily frequency control (docs/frequency.md): whether it runs,
 * and the release policy it runs with. The policy is compiled (so checked)
 * even while control is off, so turning it on cannot surface a bad window
 * only then.
 *
 * Off unless `frequency.enabled` is true. With it on, a broadcast reaches a
 * user only once one of the user's slots of the day is released, and at
 * 00:00 almost no slot is: a fresh install's first task after midnight would
 * reach almost nobody, and every test, demo and benchmark would depend on the
 * time of day it runs at. So an operator turns it on knowingly; the defaults
 * it then runs with are the seed's (6 a day, 2 + 4 competition windows).
 */
export function compileFrequency(options: HeraldOptions): FrequencyConfig {
  const frequency = section(options, 'frequency', ['enabled', 'dailyLimit', 'windows', 'utcOffsetMinutes']);
  const { enabled, ...policy } = frequency;
  if (enabled !== undefined && typeof enabled !== 'boolean')
    throw new ConfigError('frequency.enabled', `must be true or false (got ${JSON.stringify(enabled)})`);
  return { enabled: enabled ?? false, policy: compileFrequencyPolicy(policy, 'frequency') };
}
