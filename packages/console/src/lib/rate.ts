/**
 * The live delivery rate of one task, from polled counts: each sample is
 * (time, recipients confirmed). The chart shows the rate between successive
 * samples; the ETA uses the rate over the last `windowMs`, which smooths
 * the steps of batch-sized progress reports.
 */
export interface RateSample {
  at: number;
  confirmed: number;
}

export interface RatePoint {
  at: number;
  perSecond: number;
}

/** Appends a sample, keeping at most `max`; a sample that goes backwards in time or count restarts the series. */
export function addSample(samples: readonly RateSample[], sample: RateSample, max = 180): RateSample[] {
  const last = samples[samples.length - 1];
  if (last !== undefined && (sample.at <= last.at || sample.confirmed < last.confirmed)) {
    return sample.at <= last.at ? [...samples] : [sample];
  }
  const next = [...samples, sample];
  return next.length > max ? next.slice(next.length - max) : next;
}

export function ratePoints(samples: readonly RateSample[]): RatePoint[] {
  const points: RatePoint[] = [];
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    points.push({ at: b.at, perSecond: ((b.confirmed - a.confirmed) * 1000) / (b.at - a.at) });
  }
  return points;
}

/** Recipients per second over the samples of the last windowMs (at least two samples), or null. */
export function recentRate(samples: readonly RateSample[], windowMs = 10_000): number | null {
  const last = samples[samples.length - 1];
  if (last === undefined) return null;
  let first = last;
  for (let i = samples.length - 2; i >= 0 && last.at - samples[i]!.at <= windowMs; i--) first = samples[i]!;
  if (first === last) return null;
  return ((last.confirmed - first.confirmed) * 1000) / (last.at - first.at);
}

/** Milliseconds until `remaining` recipients are confirmed at `perSecond`, or null when it cannot be told. */
export function eta(remaining: number, perSecond: number | null): number | null {
  if (remaining <= 0) return 0;
  if (perSecond === null || perSecond <= 0) return null;
  return (remaining / perSecond) * 1000;
}
