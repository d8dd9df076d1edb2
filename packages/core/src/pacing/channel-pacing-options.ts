import { ValidationError } from '../errors';

/** ChannelPacing's bounds and factors (channel-pacing.ts). */
export interface ChannelPacingOptions {
  /** Recipients per second to start at. */
  initialRate: number;
  /** The rate never falls below this. */
  minRate: number;
  /** The rate never rises above this: the channel's configured limit. */
  maxRate: number;
  /** Additive increase: recipients per second added per second of acceptance. */
  increasePerSecond: number;
  /** Multiplicative decrease on a throttle or a latency rise, in (0, 1). */
  decreaseFactor: number;
  /** How far (ms of the current rate) the schedule may run ahead of now: the burst. */
  burstMs: number;
  /** Cuts closer together than this count once. */
  cutSpacingMs: number;
  /** A throttle without Retry-After holds sending this long. */
  throttleDelayMs: number;
  /** Latency below this never counts as a rise. */
  latencyFloorMs: number;
  /** A latency average this many times the lowest seen is a rise. */
  latencyRiseFactor: number;
  /** Failures in a row that open the breaker. */
  failureThreshold: number;
  /** Wait after the first failure, doubled per further one, at most `openMs`. */
  failureDelayMs: number;
  /** How long the breaker stays open before a probe. */
  openMs: number;
}

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
