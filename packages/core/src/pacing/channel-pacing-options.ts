import { ValidationError } from '../errors';
import type { ChannelPacingOptions } from './channel-pacing';

/** Checks ChannelPacing's options at construction: each bound and factor in range, the rates in order. */
export function checkOptions(o: ChannelPacingOptions): void {
  const positive = (name: keyof ChannelPacingOptions) => {
    if (!(Number.isFinite(o[name]) && o[name] > 0))
      throw new ValidationError(`channel pacing ${name} must be a finite number above 0 (got ${o[name]})`, {
        [name]: o[name],
      });
  };
  const atLeastZero = (name: keyof ChannelPacingOptions) => {
    if (!(Number.isFinite(o[name]) && o[name] >= 0))
      throw new ValidationError(`channel pacing ${name} must be a finite number, at least 0 (got ${o[name]})`, {
        [name]: o[name],
      });
  };
  for (const name of ['initialRate', 'minRate', 'maxRate', 'openMs', 'failureThreshold', 'latencyRiseFactor'] as const)
    positive(name);
  for (const name of [
    'increasePerSecond',
    'burstMs',
    'cutSpacingMs',
    'throttleDelayMs',
    'latencyFloorMs',
    'failureDelayMs',
  ] as const)
    atLeastZero(name);
  if (!(o.decreaseFactor > 0 && o.decreaseFactor < 1))
    throw new ValidationError(`channel pacing decreaseFactor must be in (0, 1) (got ${o.decreaseFactor})`, {
      decreaseFactor: o.decreaseFactor,
    });
  if (!(o.minRate <= o.initialRate && o.initialRate <= o.maxRate))
    throw new ValidationError(
      `channel pacing rates must satisfy minRate <= initialRate <= maxRate (got ${o.minRate}, ${o.initialRate}, ${o.maxRate})`,
      { minRate: o.minRate, initialRate: o.initialRate, maxRate: o.maxRate },
    );
  if (o.latencyRiseFactor <= 1)
    throw new ValidationError(`channel pacing latencyRiseFactor must be above 1 (got ${o.latencyRiseFactor})`, {
      latencyRiseFactor: o.latencyRiseFactor,
    });
}
